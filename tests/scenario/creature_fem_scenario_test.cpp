// The creature scenario with an FEM body (body.fem): the example loads, runs and re-scores on
// the hard ground; its frames draw the triangles' sides; water and explicit springs are errors
// that name the field.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "scenario/creature_scenario.hpp"
#include "scenario/scenario.hpp"

namespace simgrad::scenario {
namespace {

TEST(CreatureFemScenario, ExampleLoadsRunsAndDrawsItsTriangles) {
  ScenarioOverrides overrides;
  auto s = load_scenario(std::string(SIMGRAD_SOURCE_DIR) + "/examples/creature_fem_walker.json", overrides);
  const std::vector<double> x = s->problem().initial();
  EXPECT_TRUE(std::isfinite(s->problem().value(x)));
  EXPECT_TRUE(std::isfinite(s->hard_loss(x)));
  const nlohmann::json summary = s->summary();
  EXPECT_EQ(summary["triangles"].get<int>(), 14);  // seven square modules
  EXPECT_EQ(summary["actuators"].get<int>(), 5);   // the H and four V modules
  const nlohmann::json frames = s->frames(x);
  // 16 nodes; each square's sides and diagonal, shared sides once: 13 in the back, 8 per leg.
  EXPECT_EQ(frames["edges"].size(), 29u);
  EXPECT_EQ(frames["frames"][0]["values"].size(), 29u);
}

TEST(CreatureFemScenario, WaterAndExplicitSpringsAreErrors) {
  const std::string water = R"({"simulator": "creature", "body": {"rows": ["#", "V"], "fem": {}},
    "controller": {"type": "sines"}, "task": {"type": "swim"},
    "water": {"normal_drag": 1.0}, "tune": {}})";
  try {
    load_scenario_text(water, "water.json");
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("water"), std::string::npos) << e.what();
  }
  const std::string springs = R"({"simulator": "creature", "body": {"nodes": [[0, 0], [0.1, 0]],
    "springs": [[0, 1, 0.1, 100, 0.1]], "fem": {}},
    "controller": {"type": "sines"}, "task": {"type": "walk"}, "tune": {}})";
  try {
    load_scenario_text(springs, "springs.json");
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("body.fem"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simgrad::scenario
