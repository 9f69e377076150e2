// Rigid-body scenario files: the examples load, tune and draw; bad fields and bad MJCF models are
// reported with the file, line and field.
#include "scenario/rigid_scenario.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "tune/methods.hpp"

namespace simgrad::scenario {
namespace {

namespace fs = std::filesystem;

fs::path example(const std::string& name) { return fs::path(SIMGRAD_SOURCE_DIR) / "examples" / name; }

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("simgrad_rigid_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// A scenario over the reacher, with `model` as its model section and `loss` as its loss.
std::string reacher_text(const std::string& model, const std::string& loss) {
  return R"({
  "simulator": "rigid",
  "model": )" + model + R"(,
  "steps": 20,
  "loss": )" + loss + R"(,
  "tune": {"parameters": [{"name": "controls", "lower": -1, "upper": 1}]}
})";
}

const std::string kReacherModel = R"({"file": ")" + (fs::path(SIMGRAD_SOURCE_DIR) / "examples/data/mjcf/reacher.xml").string() +
                                  R"(", "ignore_visual": true})";

// The ScenarioError of loading `text` as a file in the scratch folder.
ScenarioError load_error(const std::string& text, const std::string& file_name = "scenario.json") {
  const fs::path file = scratch(file_name);
  std::ofstream(file) << text;
  try {
    load_scenario(file);
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "no ScenarioError";
  return ScenarioError("", 0, 0, "", "");
}

// The parameters `iterations` L-BFGS iterations take the problem to, from its initial ones.
std::vector<double> tuned_by_lbfgs(tune::Problem& p, int iterations) {
  tune::OptimizerOptions options;
  options.max_iterations = iterations;
  auto lbfgs = tune::make_optimizer("lbfgs", options);
  auto objective = p.space().objective(p);
  const auto result = tune::minimize(*lbfgs, objective, p.space().to_optimizer(p.initial()), p.space().optimizer_lower(),
                                     p.space().optimizer_upper());
  return p.space().to_physical(result.x);
}

TEST(RigidScenario, TheReacherExampleReachesItsTargetWithin30Iterations) {
  auto scenario = load_scenario(example("rigid_reacher.json"));
  EXPECT_EQ(scenario->simulator(), "rigid");
  tune::Problem& p = scenario->problem();
  const std::vector<double> x = tuned_by_lbfgs(p, 30);
  const double initial_loss = p.value(p.initial());
  EXPECT_LT(p.value(x), 1e-3 * initial_loss);  // last, so that the summary is of the run at x
  EXPECT_LT(scenario->summary()["final_reach_distance"].get<double>(), 0.01);
}

TEST(RigidScenario, FramesDrawTheBodiesAndTheEnergy) {
  auto scenario = load_scenario(example("rigid_double_pendulum_swingup.json"));
  const nlohmann::json frames = scenario->frames(scenario->problem().initial());
  ASSERT_GE(frames["frames"].size(), 50u);
  EXPECT_GT(frames["frames"][0]["lines"].size(), 10u);
  ASSERT_EQ(frames["charts"].size(), 1u);
  // No actuation yet and a little joint damping: the energy never grows.
  const auto& energy = frames["charts"][0]["series"][0]["y"];
  for (std::size_t i = 1; i < energy.size(); ++i) EXPECT_LE(energy[i].get<double>(), energy[i - 1].get<double>() + 1e-9);
}

TEST(RigidScenario, AnUnknownBodyIsNamedWithItsFileLineAndField) {
  const ScenarioError e = load_error(reacher_text(kReacherModel, R"({"reach": {"body": "hand", "target": [0, 0, 0]}})"));
  EXPECT_EQ(e.line(), 5);
  EXPECT_EQ(e.path(), "loss.reach.body");
  EXPECT_NE(e.message().find("\"fingertip\""), std::string::npos) << e.message();
}

TEST(RigidScenario, ABadModelFileNamesTheModelsOwnLine) {
  const fs::path xml = scratch("broken.xml");
  std::ofstream(xml) << "<mujoco>\n  <worldbody>\n    <body><joint type=\"hinge\" bogus=\"1\"/>"
                        "<geom size=\"0.1\"/></body>\n  </worldbody>\n</mujoco>\n";
  const ScenarioError e = load_error(reacher_text(R"({"file": "broken.xml"})", R"({"pose": {"qpos": [0]}})"));
  EXPECT_EQ(e.path(), "model.file");
  EXPECT_NE(e.message().find("broken.xml:3"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("bogus"), std::string::npos) << e.message();
}

TEST(RigidScenario, VisualElementsNeedIgnoreVisual) {
  const std::string model = R"({"file": ")" + (fs::path(SIMGRAD_SOURCE_DIR) / "examples/data/mjcf/reacher.xml").string() + R"("})";
  const ScenarioError e = load_error(reacher_text(model, R"({"pose": {"qpos": [0, 0, 0, 0]}})"));
  EXPECT_NE(e.message().find("ignore_visual"), std::string::npos) << e.message();
}

TEST(RigidScenario, APoseOfTheWrongLengthIsAnError) {
  const ScenarioError e = load_error(reacher_text(kReacherModel, R"({"pose": {"qpos": [0, 0]}})"));
  EXPECT_EQ(e.path(), "loss.pose.qpos");
}

TEST(RigidScenario, TheBilliardsShotPutsItsBallOnTheTargetAndHoldsOnTheHardModel) {
  auto scenario = load_scenario(example("rigid_billiards.json"));
  tune::Problem& p = scenario->problem();
  const std::vector<double> x = tuned_by_lbfgs(p, 30);
  const double tuned = p.value(x);
  EXPECT_LT(tuned, 1e-3 * p.value(p.initial()));
  EXPECT_LT(std::sqrt(tuned / 100.0), 0.005);  // the loss is 100 times the squared distance
  // Impulse contact is its own hard twin: the re-score is the same shot.
  EXPECT_NEAR(scenario->hard_loss(x), tuned, 1e-12 + 1e-9 * tuned);
}

TEST(RigidScenario, ImpulseContactNamesAPairItCannotResolve) {
  std::ofstream(scratch("capsule.xml")) << "<mujoco><worldbody><geom name=\"floor\" type=\"plane\" size=\"1 1 1\"/>"
                                           "<body pos=\"0 0 1\"><freejoint/><geom name=\"rod\" type=\"capsule\" "
                                           "size=\"0.1 0.3\"/></body></worldbody></mujoco>\n";
  const ScenarioError e = load_error(reacher_text(R"({"file": "capsule.xml", "contact": {"model": "impulse"}})",
                                                  R"({"pose": {"qvel": [0, 0, 0, 0, 0, 0]}})"));
  EXPECT_EQ(e.path(), "model.contact.model");
  EXPECT_NE(e.message().find("\"floor\" and \"rod\""), std::string::npos) << e.message();
}

}  // namespace
}  // namespace simgrad::scenario
