// MPM scenario files: the examples load and draw; the gradient of a scenario matches finite
// differences; bad fields (negative density, nu >= 0.5, a particle outside the grid, dt beyond the
// CFL limit) are reported with the file, line and field; the hard model re-scores.
#include "scenario/mpm_scenario.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/gradcheck.hpp"

namespace simgrad::scenario {
namespace {

namespace fs = std::filesystem;

fs::path example(const std::string& name) { return fs::path(SIMGRAD_SOURCE_DIR) / "examples" / name; }

// A small scenario: one body (its fields `body`) on a 24 x 24 grid.
std::string block_text(const std::string& body, const std::string& extra = "") {
  return R"({
  "simulator": "mpm",
  "grid": {"nodes": [24, 24]},
  "dt": 2e-3,
  "steps": 20,
  "gravity": [0.0, -9.8],)" + extra + R"(
  "bodies": [
    {"centre": [0.5, 0.3], "half_extent": [0.1, 0.1], )" + body + R"(}
  ],
  "loss": {"type": "target", "target": [0.55, 0.2]},
  "tune": {"parameters": [{"name": "initial_velocity", "sharing": "uniform"}]}
})";
}

// The ScenarioError of loading `text`.
ScenarioError load_error(const std::string& text) {
  try {
    load_scenario_text(text, "bad.json");
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "no ScenarioError";
  return ScenarioError("", 0, 0, "", "");
}

TEST(MpmScenario, BadInputNamesFileLineAndField) {
  EXPECT_NO_THROW(load_scenario_text(block_text(R"("youngs_modulus": 200.0, "density": 10.0)"), "good.json"));
  const ScenarioError density = load_error(block_text(R"("density": -1.0)"));
  EXPECT_EQ(density.path(), "bodies[0].density");
  EXPECT_EQ(density.line(), 8);
  EXPECT_NE(density.message().find("positive"), std::string::npos) << density.what();
  EXPECT_EQ(load_error(block_text(R"("poisson_ratio": 0.5)")).path(), "bodies[0].poisson_ratio");
  EXPECT_EQ(load_error(block_text(R"("centre": [0.97, 0.3])").substr(0)).path(), "bodies[0].centre");
  const ScenarioError cfl = load_error(block_text(R"("youngs_modulus": 1e9, "density": 10.0)"));
  EXPECT_EQ(cfl.path(), "dt");
  EXPECT_NE(cfl.message().find("CFL"), std::string::npos) << cfl.what();
  EXPECT_EQ(load_error(block_text(R"("material": "clay")")).path(), "bodies[0].material");
  // A body reaching outside the grid, or asking for billions of particles (found by the fuzzer).
  const ScenarioError outside = load_error(block_text(R"("shape": "sphere", "radius": 60.06)"));
  EXPECT_EQ(outside.path(), "bodies[0].radius");
  EXPECT_NE(outside.message().find("outside the grid"), std::string::npos) << outside.what();
  EXPECT_EQ(load_error(block_text(R"("spacing": 1e-6)")).path(), "bodies[0].spacing");
}

TEST(MpmScenario, GradientMatchesFiniteDifferencesAndTheHardModelRescores) {
  auto scenario = load_scenario_text(block_text(R"("youngs_modulus": 200.0, "density": 10.0)", R"(
  "relax": {"boundary": 30.0},)"),
                                     "block.json");
  tune::Problem& p = scenario->problem();
  const std::vector<double> x = p.initial();
  std::vector<double> g(x.size());
  const double loss = p.value_and_gradient(x, g);
  GradCheckOptions options;
  options.step = 1e-5;
  const GradCheckReport report = check_gradient([&](std::span<const double> y) { return p.value(y); }, x, g, options);
  EXPECT_TRUE(report.ok);
  EXPECT_NEAR(scenario->hard_loss(x), loss, 1e-2 * loss);  // no contact in 20 steps: the twins agree closely
}

TEST(MpmScenario, ExamplesLoadAndDrawParticlesByMaterialAndStress) {
  for (const char* name : {"mpm_robot.json", "mpm_sand_runout.json"}) {
    auto scenario = load_scenario(example(name));
    EXPECT_EQ(scenario->simulator(), "mpm");
    const nlohmann::json frames = scenario->frames(scenario->problem().initial());
    ASSERT_GE(frames["frames"].size(), 20u) << name;
    const nlohmann::json& last = frames["frames"].back();
    EXPECT_EQ(last["points"].size(), last["classes"].size());
    EXPECT_EQ(frames["palette"].size(), 15u);
    EXPECT_GT(scenario->summary()["particles"].get<int>(), 100);
  }
}

}  // namespace
}  // namespace simgrad::scenario
