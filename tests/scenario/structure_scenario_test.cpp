#include "scenario/structure_scenario.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

namespace simgrad::scenario {
namespace {

// A three-bar truss scenario; `extra` goes in before the closing brace.
std::string three_bar(const std::string& supports, const std::string& member_material = "steel") {
  return R"({
  "simulator": "structure",
  "kind": "truss2d",
  "materials": {"steel": {"young": 2e11, "yield": 2.5e8, "density": 7850}},
  "sections": {"bar": {"area": 1e-3, "inertia": 1e-7}},
  "joints": [[0, 0], [2, 0], [1, 1]],
  "members": [{"joints": [0, 1], "material": ")" + member_material + R"(", "section": "bar"},
              {"joints": [1, 2], "material": "steel", "section": "bar"},
              {"joints": [2, 0], "material": "steel", "section": "bar"}],
  "supports": )" + supports + R"(,
  "load_cases": [{"loads": [{"joint": 2, "force": [0, -1e4]}]}],
  "rating": {"weights": {"stress": 1}},
  "tune": {"parameters": [{"name": "area", "lower": 1e-4, "upper": 1e-2}]}
})";
}

const std::string kSupported = R"([{"joint": 0, "type": "pinned"}, {"joint": 1, "type": "roller"}])";

TEST(StructureScenario, LoadsAndRatesAThreeBarTruss) {
  auto s = load_scenario_text(three_bar(kSupported), "three_bar.json");
  EXPECT_EQ(s->simulator(), "structure");
  const double rating = s->problem().value(s->problem().initial());
  // The apex load of 10 kN puts 7.07 kN of compression in each 45 degree strut, whose Euler
  // stress (pi^2 E I / L^2 / A = 98.7 MPa) is below half the yield stress, so Euler governs;
  // the tie carries 5 kN against 250 kN. The rating is the smooth maximum (t = 0.05) of the three.
  const double strut = 1e4 / std::sqrt(2.0) / (std::numbers::pi * std::numbers::pi * 2e11 * 1e-7 / 2.0), tie = 5e3 / 2.5e5;
  const double t = 0.05;
  EXPECT_NEAR(rating, t * std::log(std::exp(tie / t) + 2.0 * std::exp(strut / t)), 1e-12);
  EXPECT_EQ(s->summary()["members"], 3);
}

TEST(StructureScenario, UnknownMaterialNamesFileLineAndField) {
  try {
    load_scenario_text(three_bar(kSupported, "stele"), "three_bar.json");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), "three_bar.json:7: members[0].material: no material named \"stele\" in \"materials\"");
  }
}

TEST(StructureScenario, MissingSupportsAreACleanErrorNotNaN) {
  try {
    load_scenario_text(three_bar(R"([{"joint": 0, "type": "roller"}])"), "three_bar.json");
    FAIL();
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("three_bar.json:10: supports: the stiffness matrix is singular at joint"), std::string::npos) << what;
    EXPECT_NE(what.find("lacks supports"), std::string::npos) << what;
  }
}

TEST(StructureScenario, FixedSupportOnATrussIsRejected) {
  EXPECT_THROW(load_scenario_text(three_bar(R"([{"joint": 0, "type": "fixed"}, {"joint": 1, "type": "roller"}])"),
                                  "three_bar.json"),
               ScenarioError);
}

}  // namespace
}  // namespace simgrad::scenario
