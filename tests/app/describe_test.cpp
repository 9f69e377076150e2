// `simgrad list` and `simgrad describe`: printed from simulators(), the declarations the loaders use.
#include <gtest/gtest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/commands.hpp"
#include "scenario/scenario.hpp"
#include "scenario/tuned_parameter.hpp"

namespace simgrad::app {
namespace {

using scenario::load_scenario;
using scenario::load_scenario_text;
using scenario::SimulatorInfo;
using scenario::simulators;
using scenario::tunable_json;

// Runs `body` with std::cout and std::cerr captured; returns {exit code, out, err}.
template <class F>
std::tuple<int, std::string, std::string> captured(F body) {
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  const int code = body();
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  return {code, out.str(), err.str()};
}

TEST(Describe, JsonIsTheSimulatorsDeclaration) {
  CommonOptions json_output;
  json_output.json = true;
  for (const SimulatorInfo& s : simulators()) {
    const auto [code, out, err] = captured([&] { return run_describe(s.name, json_output); });
    ASSERT_EQ(code, 0) << err;
    const nlohmann::json j = nlohmann::json::parse(out);
    EXPECT_EQ(j["name"], s.name);
    nlohmann::json declared = nlohmann::json::array();
    for (const tune::TunableInfo& t : s.tunables) declared.push_back(tunable_json(t));
    EXPECT_EQ(j["parameters"], declared);
    EXPECT_FALSE(j["parameters"].empty());
  }
}

TEST(Describe, TextNamesEveryParameterWithItsUnit) {
  const auto [code, out, err] = captured([] { return run_describe("softbody", CommonOptions{}); });
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(out.find("stiffness ["), std::string::npos) << out;
  EXPECT_NE(out.find("rest_length ["), std::string::npos) << out;
}

TEST(Describe, TextPrintsEachParametersDefault) {
  const auto [code, out, err] = captured([] { return run_describe("softbody", CommonOptions{}); });
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(out.find("force per unit extension (default 0)"), std::string::npos) << out;
  EXPECT_NE(out.find("(default each spring's initial length)"), std::string::npos) << out;
  const auto [vcode, vout, verr] = captured([] { return run_describe("vehicle", CommonOptions{}); });
  EXPECT_NE(vout.find("(default bmw_320i "), std::string::npos) << vout;
  for (const SimulatorInfo& s : simulators())
    for (const tune::TunableInfo& t : s.tunables)
      EXPECT_NE(t.default_value.kind, tune::TunableDefault::Kind::none) << s.name << " " << t.name;
}

// The described defaults are the values a scenario that leaves a quantity out starts from.
TEST(Describe, DefaultsAreWhatTheLoadersStartFrom) {
  auto described = [](const std::string& simulator, const std::string& name) {
    for (const SimulatorInfo& s : simulators())
      for (const tune::TunableInfo& t : s.tunables)
        if (s.name == simulator && t.name == name) return tunable_json(t)["default"];
    return nlohmann::json();
  };
  // An epidemic with no "parameters" section, tuning R and mortality from where they start.
  const auto epidemic = load_scenario_text(R"({"simulator": "contagion", "population": {"complete": 50},
      "disease": {"exposed_days": 1, "infectious_days": 3},
      "data": {"file": "data/epidemics/boarding_school_flu_1978.csv", "column": "confined_to_bed", "count": "infectious"},
      "tune": {"parameters": [{"name": "reproduction", "sharing": "uniform"}, {"name": "mortality"}]}})",
                                           std::string(SIMGRAD_SOURCE_DIR) + "/examples/defaults.json");
  const std::vector<double> x = epidemic->problem().initial();
  EXPECT_EQ(x.at(0), described("contagion", "reproduction").get<double>());
  EXPECT_EQ(x.at(1), described("contagion", "mortality").get<double>());
  // A car tunes front_B from its preset's value.
  const auto car = load_scenario(std::string(SIMGRAD_SOURCE_DIR) + "/examples/vehicle/bmw_320i_step_steer.json");
  EXPECT_EQ(car->problem().space().parameters().at(0).name, "front_B");
  EXPECT_EQ(car->problem().initial().at(0), described("vehicle", "front_B")["bmw_320i"].get<double>());
}

TEST(Describe, UnknownSimulatorIsBadUsageWithTheNearestName) {
  const auto [code, out, err] = captured([] { return run_describe("softbdy", CommonOptions{}); });
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("did you mean \"softbody\""), std::string::npos) << err;
}

TEST(Describe, ListPrintsEverySimulator) {
  const auto [code, out, err] = captured([] { return run_list(CommonOptions{}); });
  ASSERT_EQ(code, 0) << err;
  for (const SimulatorInfo& s : simulators()) EXPECT_NE(out.find(s.name + ": "), std::string::npos);
}

}  // namespace
}  // namespace simgrad::app
