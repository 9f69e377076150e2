// Vehicle scenario files: the examples load and their gradients agree with finite differences;
// bad telemetry and bad fields are reported with the file, line and column or field.
#include "scenario/vehicle_scenario.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::scenario {
namespace {

namespace fs = std::filesystem;

fs::path example(const std::string& name) { return fs::path(SIMGRAD_SOURCE_DIR) / "examples" / "vehicle" / name; }

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("simgrad_vehicle_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// A scenario over `csv` (written next to it), with the given column mapping and vehicle section.
std::string scenario_text(const std::string& csv_name, const std::string& columns,
                          const std::string& vehicle = R"({"preset": "bmw_320i"})") {
  return R"({
  "simulator": "vehicle",
  "vehicle": )" + vehicle + R"(,
  "telemetry": {"file": ")" + csv_name + R"(", "time": "t",
                "columns": )" + columns + R"(},
  "fit": {"window": 0.05},
  "tune": {"parameters": [{"name": "yaw_inertia", "lower": 100, "upper": 5000}]}
})";
}

// The ScenarioError of loading `text` as a file in the scratch folder.
ScenarioError load_error(const std::string& text) {
  const fs::path file = scratch("scenario.json");
  std::ofstream(file) << text;
  try {
    load_scenario(file);
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "no ScenarioError";
  return ScenarioError("", 0, 0, "", "");
}

// Checks the gradient of example `name` at its initial constants against central differences.
void expect_example_gradient(const std::string& name) {
  auto scenario = load_scenario(example(name));
  EXPECT_EQ(scenario->simulator(), "vehicle");
  tune::Problem& problem = scenario->problem();
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  vehicle::expect_relative_gradient([&](std::span<const double> y) { return problem.value(y); }, x, g, 1e-5);
}

TEST(VehicleScenario, ExampleGradientMatchesFiniteDifferences) { expect_example_gradient("orca_fit.json"); }

TEST(VehicleScenario, SummaryReportsFitQualityAndFlatDirections) {
  auto scenario = load_scenario(example("bmw_320i_fit.json"));
  scenario->problem().value(scenario->problem().initial());
  const nlohmann::json s = scenario->summary();
  EXPECT_EQ(s["method"], "multiple_shooting");
  EXPECT_EQ(s["windows"], 304);  // 76 s in windows of 0.25 s
  for (const char* channel : {"yaw_rate", "ay", "vx"}) EXPECT_GT(s["fit_rmse"]["initial"][channel].get<double>(), 0.0);
  EXPECT_EQ(s["parameters_vs_preset"]["yaw_inertia"]["preset"], 1791.6);
  const auto& directions = s["gauss_newton"]["directions_smallest_first"];
  ASSERT_EQ(directions.size(), scenario->problem().dimension());
  EXPECT_LE(directions[0]["eigenvalue_ratio"].get<double>(), directions[1]["eigenvalue_ratio"].get<double>());
}

TEST(VehicleScenario, BadCsvValueNamesTheCsvFileLineAndColumn) {
  std::ofstream(scratch("bad.csv")) << "t,vx\n0,10\n0.01,10\n0.02,ten\n0.03,10\n";
  const ScenarioError e = load_error(scenario_text("bad.csv", R"({"vx": "vx"})"));
  EXPECT_EQ(fs::path(e.file()).filename(), "bad.csv");
  EXPECT_EQ(e.line(), 4);
  EXPECT_NE(std::string(e.what()).find("column \"vx\""), std::string::npos) << e.what();
}

TEST(VehicleScenario, OutOfOrderTimeNamesItsLine) {
  std::ofstream(scratch("unordered.csv")) << "t,vx\n0,10\n0.02,10\n0.01,10\n0.03,10\n";
  const ScenarioError e = load_error(scenario_text("unordered.csv", R"({"vx": "vx"})"));
  EXPECT_EQ(e.line(), 4);
  EXPECT_NE(std::string(e.what()).find("does not increase"), std::string::npos) << e.what();
}

TEST(VehicleScenario, WrongUnitAndUnknownChannelNameTheScenarioField) {
  std::ofstream(scratch("good.csv")) << "t,vx,r\n0,10,0\n0.01,10,0\n0.02,10,0\n0.03,10,0\n0.04,10,0\n0.05,10,0\n0.06,10,0\n";
  const ScenarioError unit = load_error(scenario_text("good.csv", R"({"vx": "vx", "yaw_rate": {"column": "r", "unit": "km/h"}})"));
  EXPECT_EQ(unit.line(), 5);
  EXPECT_NE(unit.message().find("\"deg/s\""), std::string::npos) << unit.what();
  const ScenarioError channel = load_error(scenario_text("good.csv", R"({"vx": "vx", "yawrate": "r"})"));
  EXPECT_NE(channel.message().find("unknown channel \"yawrate\""), std::string::npos) << channel.what();
  const ScenarioError no_vx = load_error(scenario_text("good.csv", R"({"yaw_rate": "r"})"));
  EXPECT_NE(no_vx.message().find("no vx channel"), std::string::npos) << no_vx.what();
}

TEST(VehicleScenario, FourWheelExampleGradientMatchesFiniteDifferences) {
  expect_example_gradient("bmw_320i_four_wheel_step_steer.json");
}

TEST(VehicleScenario, FourWheelFieldsAndWheelChannelsNameTheField) {
  std::ofstream(scratch("wheels.csv")) << "t,vx,w\n0,10,32\n0.01,10,32\n0.02,10,32\n0.03,10,32\n0.04,10,32\n0.05,10,32\n0.06,10,32\n";
  const std::string columns = R"({"vx": "vx", "wheel_speed_fl": "w"})";
  const ScenarioError single = load_error(scenario_text("wheels.csv", columns));
  EXPECT_NE(single.message().find("four-wheel"), std::string::npos) << single.what();
  const ScenarioError diff =
      load_error(scenario_text("wheels.csv", columns, R"({"preset": "bmw_320i", "differential": "open"})"));
  EXPECT_EQ(diff.line(), 3);
  EXPECT_NE(diff.message().find("four_wheel"), std::string::npos) << diff.what();
  const ScenarioError linear = load_error(
      scenario_text("wheels.csv", columns, R"({"preset": "bmw_320i", "tire": "linear", "model": "four_wheel"})"));
  EXPECT_NE(linear.message().find("Magic Formula"), std::string::npos) << linear.what();
  // The four-wheel model fits the wheel speed.
  const fs::path file = scratch("four_wheel.json");
  std::ofstream(file) << scenario_text("wheels.csv", columns, R"({"preset": "bmw_320i", "model": "four_wheel"})");
  EXPECT_GT(load_scenario(file)->problem().value(load_scenario(file)->problem().initial()), 0.0);
}

}  // namespace
}  // namespace simgrad::scenario
