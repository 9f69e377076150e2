#include "scenario/creature_scenario.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "scenario/scenario.hpp"
#include "sims/creature/body_plan.hpp"

namespace simgrad::scenario {
namespace {

std::string example(const std::string& name) { return std::string(SIMGRAD_SOURCE_DIR) + "/examples/" + name + ".json"; }

// The shipped robots are DiffTaichi's robot configuration, node for node and spring for spring.
TEST(CreatureScenario, ShippedRobotsAreDiffTaichisBodyPlans) {
  for (int r = 0; r < 4; ++r) {
    std::ifstream in(example("creature_robot" + std::to_string(r + 1)));
    const nlohmann::json j = nlohmann::json::parse(in);
    const creature::BodyPlan plan = creature::difftaichi_robot(r);
    const nlohmann::json& nodes = j["body"]["nodes"];
    const nlohmann::json& springs = j["body"]["springs"];
    ASSERT_EQ(nodes.size(), plan.nodes.size()) << r;
    ASSERT_EQ(springs.size(), plan.springs.size()) << r;
    for (std::size_t i = 0; i < plan.nodes.size(); ++i)
      for (int k = 0; k < 2; ++k) EXPECT_EQ(nodes[i][static_cast<std::size_t>(k)].get<double>(), plan.nodes[i][k]);
    for (std::size_t e = 0; e < plan.springs.size(); ++e) {
      const creature::PlanSpring& s = plan.springs[e];
      EXPECT_EQ(springs[e][0].get<int>(), s.a);
      EXPECT_EQ(springs[e][1].get<int>(), s.b);
      EXPECT_EQ(springs[e][2].get<double>(), s.length);
      EXPECT_EQ(springs[e][3].get<double>(), s.stiffness);
      EXPECT_EQ(springs[e][4].get<double>(), s.actuation);
    }
  }
}

TEST(CreatureScenario, ExamplesLoadAndReScoreOnTheHardModel) {
  for (const char* name : {"creature_robot1", "creature_grid_walker", "creature_jumper", "creature_swimmer", "creature_carrier"}) {
    ScenarioOverrides overrides;
    auto s = load_scenario(example(name), overrides);
    EXPECT_EQ(s->simulator(), "creature");
    const std::vector<double> x = s->problem().initial();
    EXPECT_TRUE(std::isfinite(s->problem().value(x))) << name;
    EXPECT_TRUE(std::isfinite(s->hard_loss(x))) << name;
    EXPECT_GT(s->summary()["actuators"].get<int>(), 0);
  }
}

TEST(CreatureScenario, BadModuleNamesTheRow) {
  const std::string text = R"({"simulator": "creature", "body": {"rows": ["##", "#Q"]},
    "controller": {"type": "sines"}, "task": {"type": "walk"}, "tune": {}})";
  try {
    load_scenario_text(text, "bad.json");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("body.rows[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("column 2"), std::string::npos) << e.what();
  }
}

// Every controller parameter is tuned, so a list of tuned parameters is an unknown field, not
// one ignored in silence.
TEST(CreatureScenario, TunedParametersAreAnUnknownField) {
  const std::string text = R"({"simulator": "creature", "body": {"rows": ["#", "V"]},
    "controller": {"type": "sines"}, "task": {"type": "walk"},
    "tune": {"parameters": [{"name": "phase"}]}})";
  try {
    load_scenario_text(text, "parameters.json");
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("parameters.json:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tune.parameters"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simgrad::scenario
