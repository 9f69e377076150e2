// Loading scenarios: checks common to every simulator.
#include "scenario/scenario.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace simgrad::scenario {
namespace {

// Found by the fuzzer: the same parameter tuned twice must be a ScenarioError naming the line.
TEST(Scenario, ParameterTunedTwiceNamesItsLine) {
  std::ifstream in(std::string(SIMGRAD_SOURCE_DIR) + "/examples/mass_spring_simple.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string once = R"({"name": "rest_length", "sharing": "each", "lower": 0.01, "upper": 2.0})";
  const std::size_t at = text.find(once);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, once.size(), once + ",\n      " + once);
  try {
    load_scenario_text(text, "twice.json");
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("twice.json:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tune.parameters[1].name"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tuned twice"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simgrad::scenario
