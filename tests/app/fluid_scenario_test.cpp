// Fluid scenario files, 2D and 3D: the examples load, their gradients agree with finite
// differences on a shortened run, frames carry the density image (3D: seen from the side), and
// bad fields are reported by name.
#include "app/fluid_scenario.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/gradcheck.hpp"

namespace simgrad::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path example(const std::string& name) { return fs::path(SIMGRAD_SOURCE_DIR) / "examples" / name; }

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("simgrad_fluid_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

json example_json(const std::string& name) { return json::parse(std::ifstream(example(name))); }

// Writes a scenario into the scratch folder and loads it.
std::unique_ptr<Scenario> load_json(const json& j) {
  const fs::path file = scratch("scenario.json");
  std::ofstream(file) << j.dump(2);
  return load_scenario(file);
}

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

TEST(FluidScenario, VentRoomGradientMatchesFiniteDifferencesOnAShortRun) {
  json j = example_json("vent_room.json");
  j["steps"] = 40;
  j["loss"]["region_step"] = 40;
  j["pressure"]["tolerance"] = 1e-12;
  auto scenario = load_json(j);
  EXPECT_EQ(scenario->simulator(), "fluid");
  tune::Problem& problem = scenario->problem();
  const std::vector<double> x = problem.initial();
  ASSERT_EQ(x.size(), 2u * 4u + 2u * 4u + 2u);  // speed and angle of two vents at 4 knots, emitter x and y
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  GradCheckOptions o;
  o.random_directions = 4;
  o.rtol = 1e-5;
  o.atol = 1e-10;
  const GradCheckReport r = check_gradient([&](std::span<const double> y) { return problem.value(y); }, x, g, o);
  for (const GradCheckEntry& e : r.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
}

TEST(FluidScenario, SmokeTargetLoadsTheWholeVelocityFieldAndTheTargetImage) {
  auto scenario = load_scenario(example("smoke_target.json"));
  EXPECT_EQ(scenario->steps, 100);
  EXPECT_EQ(scenario->problem().dimension(), 2u * 110u * 110u);  // periodic: one face per cell and axis
}

TEST(FluidScenario, FramesHoldTheDensityImageObstaclesAndSources) {
  json j = example_json("vent_room.json");
  j["steps"] = 6;
  auto scenario = load_json(j);
  const json f = scenario->frames(scenario->problem().initial());
  ASSERT_FALSE(f["frames"].empty());
  const json& field = f["frames"][0]["field"];
  EXPECT_EQ(field["nx"], 40);
  EXPECT_EQ(field["ny"], 30);
  EXPECT_EQ(field["values"].size(), 1200u);
  EXPECT_EQ(field["box"], json({0.0, 0.0, 4.0, 3.0}));  // the room, 4 m by 3 m
  EXPECT_EQ(f["frames"][0]["arrows"].size(), 3u);
  // The domain outline, the solid cells' outline and three source circles of 24 segments,
  // every segment inside the domain.
  EXPECT_GT(f["background"]["lines"].size(), 4u + 3u * 24u + 40u);
  for (const json& l : f["background"]["lines"])
    for (int k : {0, 2}) EXPECT_LE(l[k].get<double>(), 4.0 + 0.6);  // source circles may reach past a wall
}

TEST(FluidScenario, ObstaclesFromAMaskImage) {
  std::ofstream(scratch("mask.pgm")) << "P2\n2 2\n255\n0 255\n255 255\n";  // top-left quarter dark
  json j = example_json("vent_room.json");
  j["obstacles"] = json::array({json{{"image", "mask.pgm"}}});
  j["steps"] = 2;
  auto scenario = load_json(j);
  const json f = scenario->frames(scenario->problem().initial());
  // The solid quarter's outline (about 20 + 15 cells along its inner edges, as many along the
  // walls it touches; bilinear stretching rounds its corner) beside the domain outline and the
  // source circles.
  const std::size_t solid_edges = f["background"]["lines"].size() - 4u - 3u * 24u;
  EXPECT_GT(solid_edges, 60u);
  EXPECT_LT(solid_edges, 80u);
}

TEST(FluidScenario, BadFieldsAreNamed) {
  const json base = example_json("vent_room.json");
  auto with = [&](const json::json_pointer& at, const json& value) {
    json j = base;
    j[at] = value;
    return load_error(j);
  };
  EXPECT_NE(with("/grid/sides/left"_json_pointer, "periodic").find("grid.sides.right"), std::string::npos);
  EXPECT_NE(with("/grid/sides/top"_json_pointer, "leaky").find("grid.sides.top"), std::string::npos);
  EXPECT_NE(with("/obstacles/0/box"_json_pointer, json::array({1.0, 1.0, 0.5, 2.0})).find("obstacles[0].box"), std::string::npos);
  EXPECT_NE(with("/viscosity"_json_pointer, 1.0).find("unstable"), std::string::npos);
  EXPECT_NE(with("/tune/parameters/0/sources"_json_pointer, json::array({7})).find("tune.parameters[0].sources"),
            std::string::npos);
  EXPECT_NE(with("/tune/parameters/2/name"_json_pointer, "colour").find("tune.parameters[2].name"), std::string::npos);
  EXPECT_NE(with("/loss/region"_json_pointer, json::array({5.0, 5.0, 6.0, 6.0})).find("holds no cell"), std::string::npos);
  json image = example_json("smoke_target.json");
  std::ofstream(scratch("broken.pgm")) << "P2\n4 4\n255\n0 0 0\n";
  image["loss"]["target_image"] = "broken.pgm";
  const std::string broken = load_error(image);
  EXPECT_NE(broken.find("loss.target_image"), std::string::npos) << broken;
  EXPECT_NE(broken.find("PGM"), std::string::npos) << broken;
}

// The advection options and vorticity confinement from a scenario: the confinement strength is
// tunable and its gradient agrees with central differences; tuning it needs the field; a scheme
// that does not apply is named.
TEST(FluidScenario, AdvectionOptionsAndTunableVorticityConfinement) {
  json j = example_json("vent_room.json");
  j["steps"] = 8;
  j["carried_advection"] = "conservative";
  j["vorticity_confinement"] = 0.4;
  j["tune"]["parameters"] = json::array({{{"name", "vorticity_confinement"}}});
  const auto scenario = load_json(j);
  tune::Problem& problem = scenario->problem();
  const std::vector<double> x = problem.initial();
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0], 0.4);
  std::vector<double> g(1);
  problem.value_and_gradient(x, g);
  const double step = 1e-5;
  const std::vector<double> up{x[0] + step}, down{x[0] - step};
  const double fd = (problem.value(up) - problem.value(down)) / (2 * step);
  EXPECT_NEAR(g[0], fd, 1e-5 * std::abs(fd) + 1e-10);
  EXPECT_NE(g[0], 0.0);
  json maccormack = j;
  maccormack["advection"] = "maccormack";
  EXPECT_TRUE(std::isfinite(load_json(maccormack)->problem().value(x)));
  json off = j;
  off.erase("vorticity_confinement");
  EXPECT_NE(load_error(off).find("vorticity_confinement"), std::string::npos);
  json bad = j;
  bad["advection"] = "conservative";
  EXPECT_NE(load_error(bad).find("advection"), std::string::npos);
  // The trace rule: an Euler step back carries the smoke elsewhere than the midpoint rule.
  json euler = j;
  euler["backtrace"] = "euler";
  const auto by_euler = load_json(euler);
  EXPECT_TRUE(std::isfinite(by_euler->problem().value(x)));
  problem.value(x);
  EXPECT_NE(by_euler->summary()["final_smoke_mass"], scenario->summary()["final_smoke_mass"]);
  euler["backtrace"] = "runge_kutta";
  EXPECT_NE(load_error(euler).find("backtrace"), std::string::npos);
}

// A 3D scenario rejects the 2D-only schemes by name.
TEST(Fluid3dScenario, TwoDimensionalSchemesAreNamed) {
  json j = example_json("smoke_chimney_3d.json");
  j["advection"] = "maccormack";
  EXPECT_NE(load_error(j).find("advection"), std::string::npos);
  json confined = example_json("smoke_chimney_3d.json");
  confined["vorticity_confinement"] = 0.1;
  EXPECT_NE(load_error(confined).find("vorticity_confinement"), std::string::npos);
  json euler = example_json("smoke_chimney_3d.json");
  euler["backtrace"] = "euler";
  EXPECT_NE(load_error(euler).find("backtrace"), std::string::npos);
}

TEST(Fluid3dScenario, ChimneyGradientMatchesFiniteDifferencesOnAShortRun) {
  json j = example_json("smoke_chimney_3d.json");
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
  json j = example_json("smoke_chimney_3d.json");
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
  const json base = example_json("smoke_chimney_3d.json");
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
