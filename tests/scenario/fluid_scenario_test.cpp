// Fluid scenario files, 2D and 3D: the examples load, their gradients agree with finite
// differences on a shortened run, frames carry the density image (3D: seen from the side), and
// bad fields are reported by name.
#include "scenario/fluid_scenario.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/gradcheck.hpp"

namespace simgrad::scenario {
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

// Checks the problem's gradient at its initial point against central differences, coordinate by
// coordinate.
void expect_gradient_matches_finite_differences(tune::Problem& problem) {
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  GradCheckOptions o;
  o.rtol = 1e-5;
  o.atol = 1e-10;
  const GradCheckReport r = check_gradient([&](std::span<const double> y) { return problem.value(y); }, x, g, o);
  for (const GradCheckEntry& e : r.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
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
  ASSERT_EQ(x.size(), 2u * 4u + 2u + 2u);  // two boundary vents' speeds at 4 knots and positions, emitter x and y
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
  ASSERT_EQ(f["frames"][0]["arrows"].size(), 3u);  // the emitter's, then the two vents' (inward, 0.3 m x speed)
  EXPECT_EQ(f["frames"][0]["arrows"][1], json({0.0, 1.2, 0.3 * 0.8, 0.0}));
  EXPECT_EQ(f["frames"][0]["arrows"][2], json({2.2, 0.0, 0.0, 0.3 * 0.6}));
  // The domain outline, the solid cells' outline, the emitter's circle of 24 segments and the
  // two boundary vents as segments on their walls, every segment inside the domain.
  EXPECT_GT(f["background"]["lines"].size(), 4u + 24u + 2u + 40u);
  for (const json& l : f["background"]["lines"])
    for (int k : {0, 2}) EXPECT_LE(l[k].get<double>(), 4.0 + 0.6);  // source circles may reach past a wall
  auto drawn = [&](std::array<double, 4> segment) {
    int n = 0;
    for (const json& l : f["background"]["lines"]) {
      bool same = l[4].get<double>() == 1.0;
      for (std::size_t k = 0; k < 4; ++k) same = same && std::abs(l[k].get<double>() - segment[k]) < 1e-12;
      n += same;
    }
    return n;
  };
  EXPECT_EQ(drawn({0.0, 1.05, 0.0, 1.35}), 1);  // the left vent, 0.3 m wide around y = 1.2
  EXPECT_EQ(drawn({2.05, 0.0, 2.35, 0.0}), 1);  // the floor vent around x = 2.2
}

TEST(FluidScenario, ObstaclesFromAMaskImage) {
  std::ofstream(scratch("mask.pgm")) << "P2\n2 2\n255\n0 255\n255 255\n";  // top-left quarter dark
  json j = example_json("vent_room.json");
  j["obstacles"] = json::array({json{{"image", "mask.pgm"}}});
  j["steps"] = 2;
  auto scenario = load_json(j);
  const json f = scenario->frames(scenario->problem().initial());
  // The solid quarter's outline (about 20 + 15 cells along its inner edges, as many along the
  // walls it touches; bilinear stretching rounds its corner) beside the domain outline, the
  // emitter's circle and the vents' segments.
  const std::size_t solid_edges = f["background"]["lines"].size() - 4u - 24u - 2u;
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

// Boundary vents' fields: a vent on a periodic side, one on an open side with Jacobi sweeps, two
// overlapping on an open side, a zero width and vent indices out of range are named; a vent quantity cannot be selected by
// "sources".
TEST(FluidScenario, BoundaryVentErrorsAreNamed) {
  const json base = example_json("vent_room.json");
  auto with = [&](const json::json_pointer& at, const json& value) {
    json j = base;
    j[at] = value;
    return load_error(j);
  };
  json ring = base;
  ring["grid"]["sides"]["bottom"] = ring["grid"]["sides"]["top"] = "periodic";
  const std::string periodic = load_error(ring);
  EXPECT_NE(periodic.find("vents[1].side"), std::string::npos) << periodic;
  EXPECT_NE(periodic.find("periodic"), std::string::npos) << periodic;
  json jacobi = base;
  jacobi["vents"][0]["side"] = "right";
  jacobi["pressure"] = {{"solver", "jacobi"}};
  const std::string sweeps = load_error(jacobi);
  EXPECT_NE(sweeps.find("vents[0].side"), std::string::npos) << sweeps;
  EXPECT_NE(sweeps.find("\"cg\""), std::string::npos) << sweeps;
  json overlap = base;  // the right side is solid below 1.9 m
  overlap["vents"][0]["side"] = overlap["vents"][1]["side"] = "right";
  overlap["vents"][0]["position"] = overlap["vents"][1]["position"] = 2.4;
  const std::string twice = load_error(overlap);
  EXPECT_NE(twice.find("vents"), std::string::npos) << twice;
  EXPECT_NE(twice.find("overlap"), std::string::npos) << twice;
  EXPECT_NE(with("/vents/1/width"_json_pointer, 0.0).find("vents[1].width"), std::string::npos);
  EXPECT_NE(with("/vents/1/side"_json_pointer, "front").find("vents[1].side"), std::string::npos);  // 3D only
  EXPECT_NE(with("/tune/parameters/0/vents"_json_pointer, json::array({2})).find("tune.parameters[0].vents"),
            std::string::npos);
  EXPECT_NE(with("/tune/parameters/0/sources"_json_pointer, json::array({0})).find("\"vents\""), std::string::npos);
}

// A room with boundary vents and no sources loads its vents.
TEST(FluidScenario, VentsWithoutSources) {
  json j = example_json("vent_room.json");
  j.erase("sources");
  j["tune"]["parameters"] = json::array({{{"name", "vent_speed"}}, {{"name", "vent_position"}, {"vents", {1}}}});
  auto scenario = load_json(j);
  EXPECT_EQ(scenario->problem().dimension(), 2u * 4u + 1u);
}

// Vents on open sides load in 2D and 3D (an exhaust fan in the open right side) and run.
TEST(FluidScenario, VentsOnOpenSidesLoadAndRun) {
  for (const char* file : {"vent_room.json", "smoke_vent_room_3d.json"}) {
    json j = example_json(file);
    j["steps"] = 3;
    if (j["loss"].contains("region_step")) j["loss"]["region_step"] = 3;
    j["vents"][0]["side"] = "right";
    j["vents"][0]["speed"] = -0.8;
    if (j["vents"][0]["position"].is_number()) j["vents"][0]["position"] = 2.4;  // clear of the 2D room's solid strip
    auto scenario = load_json(j);
    const std::vector<double> x = scenario->problem().initial();
    std::vector<double> g(x.size());
    EXPECT_TRUE(std::isfinite(scenario->problem().value_and_gradient(x, g))) << file;
    for (double d : g) EXPECT_TRUE(std::isfinite(d)) << file;
  }
}

// A 3D scenario takes MacCormack, vorticity confinement and Jacobi sweeps, and rejects the
// 2D-only conservative scheme by name.
TEST(Fluid3dScenario, TakesTheOptionalSchemesAndNamesThe2dOnlyOne) {
  json j = example_json("smoke_chimney_3d.json");
  j["advection"] = "maccormack";
  j["vorticity_confinement"] = 0.1;
  j["pressure"] = {{"solver", "jacobi"}, {"iterations", 20}};
  EXPECT_NO_THROW(load_json(j));
  json conservative = example_json("smoke_chimney_3d.json");
  conservative["carried_advection"] = "conservative";
  const std::string error = load_error(conservative);
  EXPECT_NE(error.find("carried_advection"), std::string::npos);
  EXPECT_NE(error.find("2D only"), std::string::npos);
  json euler = example_json("smoke_chimney_3d.json");
  euler["backtrace"] = "euler";
  EXPECT_NE(load_error(euler).find("backtrace"), std::string::npos);
}

// The chimney with MacCormack velocity, tunable confinement and Jacobi sweeps: the gradient
// (confinement strength included) against finite differences on a short run.
TEST(Fluid3dScenario, ChimneyGradientWithTheOptionalSchemesMatchesFiniteDifferences) {
  json j = example_json("smoke_chimney_3d.json");
  j["steps"] = 5;
  j["loss"]["region_step"] = 5;
  j["advection"] = "maccormack";
  j["carried_advection"] = "semi_lagrangian";
  j["vorticity_confinement"] = 0.3;
  j["pressure"] = {{"solver", "jacobi"}, {"iterations", 15}};
  j["tune"]["parameters"].push_back({{"name", "vorticity_confinement"}, {"lower", 0.0}, {"upper", 1.0}});
  auto scenario = load_json(j);
  ASSERT_EQ(scenario->problem().dimension(), 7u);
  expect_gradient_matches_finite_differences(scenario->problem());
}

TEST(Fluid3dScenario, ChimneyGradientMatchesFiniteDifferencesOnAShortRun) {
  json j = example_json("smoke_chimney_3d.json");
  j["steps"] = 6;
  j["loss"]["region_step"] = 6;
  j["pressure"]["tolerance"] = 1e-12;
  auto scenario = load_json(j);
  EXPECT_EQ(scenario->simulator(), "fluid");
  // The wind's speed at 2 knots, its angle and tilt, the chimney's x and z.
  ASSERT_EQ(scenario->problem().dimension(), 2u + 1u + 1u + 1u + 1u);
  expect_gradient_matches_finite_differences(scenario->problem());
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
  EXPECT_NE(with("/pressure/iterations"_json_pointer, 0).find("pressure.iterations"), std::string::npos);
  EXPECT_NE(with("/carried_advection"_json_pointer, "conservative").find("carried_advection"), std::string::npos);
  EXPECT_NE(with("/obstacles/0/box"_json_pointer, json::array({1.0, 0.0, 0.2, 0.8, 0.75, 0.8})).find("obstacles[0].box"),
            std::string::npos);
  EXPECT_NE(with("/grid/sides/front"_json_pointer, "periodic").find("grid.sides.back"), std::string::npos);
  EXPECT_NE(with("/loss/region"_json_pointer, json::array({1.4, 0.1, 0.35, 1.8, 0.6})).find("loss.region"), std::string::npos);
  EXPECT_NE(with("/tune/parameters/2/name"_json_pointer, "colour").find("tune.parameters[2].name"), std::string::npos);
}

// The 3D vent room: its gradient over both ducts' speed schedules and patch positions agrees
// with central differences on a short run (the region moved by the smoke duct).
TEST(Fluid3dScenario, VentRoomGradientMatchesFiniteDifferencesOnAShortRun) {
  json j = example_json("smoke_vent_room_3d.json");
  j["steps"] = 5;
  j["loss"]["region_step"] = 5;
  j["loss"]["region"] = {0.0, 0.0, 0.0, 0.5, 1.0, 1.25};  // where the smoke gets to in 5 steps
  j["grid"]["cells"] = {8, 6, 5};  // the same room at 0.25 m cells: a fast test
  j["grid"]["cell_size"] = 0.25;
  j["pressure"]["tolerance"] = 1e-12;
  auto scenario = load_json(j);
  tune::Problem& problem = scenario->problem();
  const std::vector<double> x = problem.initial();
  ASSERT_EQ(x.size(), 2u * 2u + 2u + 2u);  // two ducts' speeds at 2 knots, their positions along both tangent axes
  expect_gradient_matches_finite_differences(problem);
}

// 3D obstacles beside boxes (a sphere, a cylinder along z) and a patch vent in the closed left
// wall: the scenario loads, its gradient over the vent's speed, position and width agrees with
// central differences, and the frames draw the sphere and the cylinder as circles.
TEST(Fluid3dScenario, SpheresCylindersAndPatchVents) {
  json j = example_json("smoke_chimney_3d.json");
  j["steps"] = 5;
  j["loss"]["region_step"] = 5;
  j["pressure"]["tolerance"] = 1e-12;
  j["grid"]["cells"] = {10, 8, 6};  // the same yard at 0.2 m cells: a fast test
  j["grid"]["cell_size"] = 0.2;
  j["grid"]["sides"]["left"] = "closed";
  j["obstacles"].push_back({{"sphere", {1.5, 1.2, 0.6, 0.2}}});
  j["obstacles"].push_back({{"cylinder", {0.6, 1.3, 0.15, 0.0, 1.2}}, {"axis", "z"}});
  j["vents"] = json::array({{{"name", "fan"}, {"side", "left"}, {"position", {0.45, 0.6}}, {"width", {0.3, 0.4}}, {"speed", 1.2}}});
  j["tune"]["parameters"] = json::array({{{"name", "vent_speed"}},
                                         {{"name", "vent_position"}, {"vents", {0}}},
                                         {{"name", "vent_position2"}},
                                         {{"name", "vent_width2"}}});
  auto scenario = load_json(j);
  tune::Problem& problem = scenario->problem();
  const std::vector<double> x = problem.initial();
  ASSERT_EQ(x.size(), 2u + 1u + 1u + 1u);
  expect_gradient_matches_finite_differences(problem);
  const json f = scenario->frames(x);
  // Obstacle circles of 24 segments: the sphere and the cylinder along z.
  int circle_segments = 0;
  for (const json& l : f["background"]["lines"]) circle_segments += l[4].get<double>() == -1.0 && l[0] != l[2] && l[1] != l[3];
  EXPECT_EQ(circle_segments, 2 * 24);
  const json bad = [&] {
    json b = j;
    b["obstacles"][2]["cylinder"][2] = -0.1;
    return b;
  }();
  EXPECT_NE(load_error(bad).find("obstacles[2].cylinder"), std::string::npos);
}

}  // namespace
}  // namespace simgrad::scenario
