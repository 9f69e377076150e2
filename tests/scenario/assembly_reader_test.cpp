// Assemblies in scenario files: a graph and a plan of one machine are one model; errors name the
// file, line and field (a plan's, its line); gradients through the machine, its fluid and either
// controller agree with central differences; a warm start maps an earlier sine bank by name.
#include "scenario/assembly_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/gradcheck.hpp"
#include "scenario/scenario.hpp"
#include "sims/assembly/edits.hpp"
#include "sims/assembly/plan.hpp"

namespace simgrad::scenario {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = SIMGRAD_SOURCE_DIR;

json example_json(const std::string& name) { return json::parse(std::ifstream(kSource / "examples" / "assembly" / name)); }

// Writes a scenario into a scratch folder and loads it.
std::unique_ptr<Scenario> load_json(const json& j) {
  const fs::path dir = fs::temp_directory_path() / ("simgrad_assembly_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "scenario.json") << j.dump(2);
  return load_scenario(dir / "scenario.json");
}

// "line N: path: message" of the ScenarioError of loading `j`.
std::string error_of(const json& j) {
  try {
    load_json(j);
  } catch (const ScenarioError& e) {
    return "line " + std::to_string(e.line()) + ": " + e.path() + ": " + e.message();
  }
  ADD_FAILURE() << "no ScenarioError";
  return "";
}

// The rover of examples/assembly/rover.json written as a plan.
json rover_as_plan() {
  json j = example_json("rover.json");
  j["model"].erase("assembly");
  j["model"]["plan"] = {
      "block chassis size=0.5,0.3,0.08 mass=3",
      "wheel wheel_fl radius=0.08 width=0.04 mass=0.3",
      "wheel wheel_fr radius=0.08 width=0.04 mass=0.3",
      "wheel wheel_bl radius=0.08 width=0.04 mass=0.3",
      "wheel wheel_br radius=0.08 width=0.04 mass=0.3",
      "rod mast length=0.2 radius=0.015 direction=0,0,1 mass=0.2",
      "hinge axle_fl chassis>wheel_fl at=0.18,0.18,-0.03 axis=0,1,0",
      "hinge axle_fr chassis>wheel_fr at=0.18,-0.18,-0.03 axis=0,1,0",
      "hinge axle_bl chassis>wheel_bl at=-0.18,0.18,-0.03 axis=0,1,0",
      "hinge axle_br chassis>wheel_br at=-0.18,-0.18,-0.03 axis=0,1,0",
      "fixed mast_mount chassis>mast at=0,0,0.04",
      "motor drive_fl axle_fl strength=1",
      "motor drive_fr axle_fr strength=1",
      "motor drive_bl axle_bl strength=1",
      "motor drive_br axle_br strength=1"};
  return j;
}

TEST(AssemblyScenario, AGraphAndAPlanOfOneMachineGiveTheSameBits) {
  json graph = example_json("rover.json"), plan = rover_as_plan();
  graph["steps"] = plan["steps"] = 60;
  auto a = load_json(graph), b = load_json(plan);
  const std::vector<double> x = a->problem().initial();
  std::vector<double> ga(x.size()), gb(x.size());
  const double la = a->problem().value_and_gradient(x, ga), lb = b->problem().value_and_gradient(x, gb);
  EXPECT_EQ(std::memcmp(&la, &lb, sizeof la), 0);
  EXPECT_EQ(std::memcmp(ga.data(), gb.data(), ga.size() * sizeof(double)), 0);
}

TEST(AssemblyScenario, ErrorsNameTheLineAndTheField) {
  json j = rover_as_plan();
  j["model"]["plan"][3] = "wheel wheel_bl radius=0.08 widht=0.04";
  // The file's line that holds the plan's fourth line (dump(2) puts one string per line).
  const std::string text = j.dump(2);
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.find("widht")), '\n');
  EXPECT_EQ(error_of(j), "line " + std::to_string(line) + ": model.plan[3]: a part has no field \"widht\"; expected size, "
                         "length, radius, width, direction, child_at, mass, friction, stiffness or damping");
  j = rover_as_plan();
  j["model"]["plan"].push_back("rod antenna length=0.1");
  EXPECT_NE(error_of(j).find("model.plan: part \"antenna\" is connected to nothing"), std::string::npos);
  j = example_json("rover.json");
  j["model"]["assembly"]["parts"][1]["radius"] = -0.08;
  EXPECT_NE(error_of(j).find("model.assembly: part \"wheel_fl\": \"length\", \"radius\" and \"width\" must be positive"),
            std::string::npos);
  j = example_json("rover.json");
  j["model"]["assembly"]["parts"][1]["radius"] = "big";
  EXPECT_NE(error_of(j).find("model.assembly.parts[1].radius: \"radius\" expects one number"), std::string::npos);
  j = example_json("rover.json");
  j["model"]["assembly"]["connections"][0]["type"] = "weld";
  EXPECT_NE(error_of(j).find("model.assembly.connections[0].type"), std::string::npos);
  j = example_json("soft_footed_walker.json");
  j["model"]["integrator"] = "RK4";
  EXPECT_NE(error_of(j).find("model.integrator: soft parts move with the Euler integrator"), std::string::npos);
  j = example_json("soft_footed_walker.json");
  j["tune"]["parameters"] = {{{"name", "initial_qvel"}, {"lower", -1}, {"upper", 1}}};
  EXPECT_NE(error_of(j).find("tune.parameters: the start of a machine with soft parts cannot be tuned"), std::string::npos);
  j = example_json("soft_footed_walker.json");
  j["model"]["plan"][2] = "rod thigh_fr length=0.16 radius=1e-300 direction=0,0,-1 mass=1e-300";
  EXPECT_NE(error_of(j).find("model.plan: the machine does not compile"), std::string::npos);
  j = rover_as_plan();
  j["model"]["plan"][1] = "wheel w radius=0.08\nblock b";
  EXPECT_NE(error_of(j).find("model.plan[1]: a plan's string holds one line"), std::string::npos);
  j = example_json("swimmer.json");
  j["model"]["plan"] = json::array({"block head size=0.2,0.06,0.05 mass=1", "start 0,0,0"});
  EXPECT_NE(error_of(j).find("controller.type: the model has no actuators for a controller to drive"), std::string::npos);
  j = example_json("step_climbing_rover.json");
  j["model"]["environment"]["obstacles"][0]["mass"] = 3.0;
  EXPECT_NE(error_of(j).find("model.environment.obstacles[0].mass: unknown field"), std::string::npos);
  j = example_json("load_carrying_rover.json");
  j["model"]["environment"]["loads"][0]["mass"] = -3.0;
  EXPECT_NE(error_of(j).find("model.environment.loads[0].mass: expected a number > 0"), std::string::npos);
  j = example_json("load_carrying_rover.json");
  j["model"]["environment"]["loads"][0]["name"] = "chassis";
  EXPECT_NE(error_of(j).find("model.assembly: load \"chassis\": the name is taken"), std::string::npos);
  j = example_json("jumper.json");
  j["loss"]["apex"]["body"] = "thigh_fl";
  EXPECT_NE(error_of(j).find("loss.apex.body: the apex is a free body's"), std::string::npos);
  j = example_json("swimmer.json");
  j["loss"]["apex"] = {{"body", "head"}};
  EXPECT_NE(error_of(j).find("loss.apex.body: an apex needs gravity"), std::string::npos);
  j = example_json("rover.json");
  j["model"]["plan"] = json::array({"block a"});
  EXPECT_NE(error_of(j).find("model.plan: give the machine as \"assembly\" or as \"plan\", not both"), std::string::npos);
}

// Checks the problem's gradient at its initial point against central differences.
void expect_gradient_matches_finite_differences(tune::Problem& problem, double rtol) {
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  GradCheckOptions o;
  o.rtol = rtol;
  o.atol = 1e-9;
  const GradCheckReport r = check_gradient([&](std::span<const double> y) { return problem.value(y); }, x, g, o);
  ASSERT_EQ(r.checks.size(), x.size());
  for (const GradCheckEntry& e : r.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
}

// The swimmer is smooth: no contact, only the fluid's drag on its parts.
TEST(AssemblyScenario, SwimmerGradientMatchesFiniteDifferencesWithASineBank) {
  json j = example_json("swimmer.json");
  j["steps"] = 100;
  auto scenario = load_json(j);
  expect_gradient_matches_finite_differences(scenario->problem(), 1e-5);
}

TEST(AssemblyScenario, SwimmerGradientMatchesFiniteDifferencesWithANetworkSensingItsJoints) {
  json j = example_json("swimmer.json");
  j["steps"] = 60;
  j["controller"] = {{"type", "network"}, {"hidden", 4}, {"seed", 7}};
  auto scenario = load_json(j);
  // 10 clocks, the root's height and quaternion (5), three hinge angles, 9 velocities: 27 inputs.
  EXPECT_EQ(scenario->problem().initial().size(), 4u * 27u + 4u + 3u * 4u + 3u);
  expect_gradient_matches_finite_differences(scenario->problem(), 1e-5);
}

// The swimmer with a spring from its head to its last fin (a loop its hinges cannot close): the
// gradient runs through the spring, whose stiffness is tuned beside the sine bank.
TEST(AssemblyScenario, SpringGradientMatchesFiniteDifferences) {
  json j = example_json("swimmer.json");
  j["steps"] = 100;
  j["model"]["plan"].push_back("spring tie head>tail3 at=-0.1,0.03,0 to=-0.15,0,0 stiffness=5 damping=0.05");
  j["tune"]["parameters"] = {{{"name", "spring_stiffness"}, {"lower", 0.1}, {"upper", 100}, {"transform", "log"}}};
  auto scenario = load_json(j);
  EXPECT_EQ(scenario->problem().initial().size(), 1u + 3u * 3u);
  expect_gradient_matches_finite_differences(scenario->problem(), 1e-5);
}

// A motorised arm swinging a soft cell, clear of the ground: smooth, and the cell's springs pull
// the arm back, so the gradient runs through nodes, springs and anchors.
TEST(AssemblyScenario, SoftPartGradientMatchesFiniteDifferences) {
  const json j = {
      {"simulator", "rigid"},
      {"model",
       {{"plan",
         {"block base size=0.2,0.2,0.2 mass=5", "rod arm length=0.3 radius=0.02 direction=1,0,0 mass=0.3",
          "soft_cell bob size=0.08,0.08,0.08 mass=0.2 stiffness=800 damping=0.5", "hinge shoulder base>arm at=0.1,0,0.1 axis=0,1,0",
          "fixed hold arm>bob at=end", "motor drive shoulder strength=2", "base fixed", "start 0,0,1"}},
        {"substeps", 4}}},
      {"steps", 80},
      {"controller", {{"type", "sine_bank"}, {"omega", 8.0}}},
      {"loss", {{"reach", {{"body", "arm"}, {"point", {0.3, 0.0, 0.0}}, {"target", {0.2, 0.0, 1.25}}}}, {"effort", 0.01}}},
      {"tune", {{"iterations", 5}}}};
  auto scenario = load_json(j);
  EXPECT_EQ(scenario->problem().initial().size(), 3u);
  expect_gradient_matches_finite_differences(scenario->problem(), 1e-5);
}

TEST(AssemblyScenario, AWarmStartMapsTheEarlierSineBankByActuatorName) {
  const json earlier = json::parse(std::ifstream(kSource / "tests" / "data" / "assembly_walker_result.json"));
  json j = example_json("walker_edited.json");
  j["controller"]["warm_start"] = (kSource / "tests" / "data" / "assembly_walker_result.json").string();
  auto warm = load_json(j);
  j["controller"].erase("warm_start");
  auto fresh = load_json(j);
  const std::vector<double> x = warm->problem().initial(), x0 = fresh->problem().initial();
  const json names = fresh->summary()["actuator_names"];
  const std::size_t nu = names.size();
  ASSERT_EQ(x.size(), 3 * nu);
  int mapped = 0;
  for (std::size_t a = 0; a < nu; ++a) {
    const json& before = earlier["summary"]["actuator_names"];
    const auto at = std::find(before.begin(), before.end(), names[a]);
    for (int k = 0; k < 3; ++k) {
      const char* key = k == 0 ? "amplitude" : k == 1 ? "phase" : "bias";
      const double expected = at == before.end() ? x0[k * nu + a] : earlier["parameters"][key][at - before.begin()].get<double>();
      EXPECT_EQ(x[k * nu + a], expected) << key << " of " << names[a];
    }
    mapped += at != before.end();
  }
  EXPECT_EQ(mapped, 8);  // the two new hip motors start fresh
  j["controller"]["warm_start"] = (kSource / "examples" / "assembly" / "rover.json").string();
  EXPECT_NE(error_of(j).find("not a tuning result with a rigid machine's summary"), std::string::npos);
}


TEST(AssemblyScenario, ExplainHintsAtEditsThatHoldWhenThePlayerMakesThem) {
  json j = example_json("walker.json");
  j["steps"] = 150;
  j["controller"]["warm_start"] = (kSource / "tests" / "data" / "assembly_walker_result.json").string();
  auto scenario = load_json(j);
  ASSERT_TRUE(scenario->gives_hints());
  const std::vector<double> x = scenario->problem().initial();
  const json out = scenario->explain(x, {.hints = 3});
  EXPECT_EQ(out["rating"].get<double>(), scenario->problem().value(x));
  ASSERT_FALSE(out["hints"].empty());
  ASSERT_LE(out["hints"].size(), 3u);
  double previous = -1e300;
  for (const json& hint : out["hints"]) {
    const double change = hint["rerated_change"].get<double>();
    EXPECT_LT(change, 0.0) << hint["text"];
    EXPECT_GE(change, previous) << "hints come largest improvement first";
    previous = change;
  }
  // The first hint, made by hand in the plan: the walker's loss changes by what the hint said.
  const json& hint = out["hints"][0];
  assembly::Assembly a = assembly::parse_plan([&] {
    std::string text;
    for (const json& line : j["model"]["plan"]) text += line.get<std::string>() + "\n";
    return text;
  }());
  const std::string part = hint["part"].get<std::string>(), action = hint["action"].get<std::string>();
  for (assembly::AssemblyEdit& e : assembly::candidate_edits(a, 0.02))
    if (e.part == part && e.action == action) a = e.edited;
  j["model"]["plan"] = json::array();
  std::istringstream lines(assembly::to_plan(a));
  for (std::string line; std::getline(lines, line);) j["model"]["plan"].push_back(line);
  auto edited = load_json(j);
  EXPECT_NEAR(edited->problem().value(x) - out["rating"].get<double>(), hint["rerated_change"].get<double>(), 1e-12);
}

}  // namespace
}  // namespace simgrad::scenario
