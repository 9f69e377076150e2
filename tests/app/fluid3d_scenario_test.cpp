// 3D fluid scenario files: the chimney example loads, its gradient agrees with finite
// differences on a shortened run, frames carry the density seen from the side, and bad fields
// are reported by name.
#include "app/fluid3d_scenario.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/gradcheck.hpp"

namespace simgrad::app {
namespace {

using nlohmann::json;

json chimney() {
  return json::parse(std::ifstream(std::filesystem::path(SIMGRAD_SOURCE_DIR) / "examples" / "smoke_chimney_3d.json"));
}

std::unique_ptr<Scenario> load_json(const json& j) { return load_scenario_text(j.dump(), "chimney.json"); }

// The ScenarioError of loading `j`, with its field path and message.
std::string load_error(const json& j) {
  try {
    load_json(j);
  } catch (const ScenarioError& e) {
    return e.path() + ": " + e.message();
  }
  ADD_FAILURE() << "no ScenarioError";
  return "";
}

TEST(Fluid3dScenario, ChimneyGradientMatchesFiniteDifferencesOnAShortRun) {
  json j = chimney();
  j["steps"] = 6;
  j["loss"]["region_step"] = 6;
  j["pressure"]["tolerance"] = 1e-12;
  auto scenario = load_json(j);
  EXPECT_EQ(scenario->simulator(), "fluid");
  tune::Problem& problem = scenario->problem();
  const std::vector<double> x = problem.initial();
  ASSERT_EQ(x.size(), 2u + 1u + 1u + 1u + 1u);  // the wind's speed at 2 knots, its angle and tilt, the chimney's x and z
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  GradCheckOptions o;
  o.rtol = 1e-5;
  o.atol = 1e-10;
  const GradCheckReport r = check_gradient([&](std::span<const double> y) { return problem.value(y); }, x, g, o);
  for (const GradCheckEntry& e : r.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
}

TEST(Fluid3dScenario, FramesShowTheDensityFromTheSide) {
  json j = chimney();
  j["steps"] = 4;
  j["loss"]["region_step"] = 4;
  auto scenario = load_json(j);
  const json f = scenario->frames(scenario->problem().initial());
  ASSERT_FALSE(f["frames"].empty());
  const json& field = f["frames"].back()["field"];
  EXPECT_EQ(field["nx"], 20);
  EXPECT_EQ(field["ny"], 16);
  EXPECT_EQ(field["values"].size(), 320u);
  EXPECT_EQ(field["box"], json({0.0, 0.0, 2.0, 1.6}));
  EXPECT_EQ(f["frames"][0]["arrows"].size(), 2u);
  // After four steps the chimney has put smoke into the picture.
  int largest = 0;
  for (const json& v : field["values"]) largest = std::max(largest, v.get<int>());
  EXPECT_EQ(largest, 255);
}

TEST(Fluid3dScenario, BadFieldsAreNamed) {
  const json base = chimney();
  auto with = [&](const json::json_pointer& at, const json& value) {
    json j = base;
    j[at] = value;
    return load_error(j);
  };
  EXPECT_NE(with("/sources/0/position"_json_pointer, json::array({0.3, 0.2})).find("sources[0].position"), std::string::npos);
  EXPECT_NE(with("/pressure/solver"_json_pointer, "jacobi").find("pressure.solver"), std::string::npos);
  EXPECT_NE(with("/obstacles/0/box"_json_pointer, json::array({1.0, 0.0, 0.2, 0.8, 0.75, 0.8})).find("obstacles[0].box"),
            std::string::npos);
  EXPECT_NE(with("/grid/sides/front"_json_pointer, "periodic").find("grid.sides.back"), std::string::npos);
  EXPECT_NE(with("/loss/region"_json_pointer, json::array({1.4, 0.1, 0.35, 1.8, 0.6})).find("loss.region"), std::string::npos);
  EXPECT_NE(with("/tune/parameters/2/name"_json_pointer, "colour").find("tune.parameters[2].name"), std::string::npos);
}

}  // namespace
}  // namespace simgrad::app
