// `simgrad list` and `simgrad describe`: printed from simulators(), the declarations the loaders use.
#include <gtest/gtest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/commands.hpp"
#include "app/scenario.hpp"

namespace simgrad::app {
namespace {

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
    EXPECT_EQ(j["parameters"], s.parameters);
    EXPECT_FALSE(j["parameters"].empty());
  }
}

TEST(Describe, TextNamesEveryParameterWithItsUnit) {
  const auto [code, out, err] = captured([] { return run_describe("softbody", CommonOptions{}); });
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(out.find("stiffness ["), std::string::npos) << out;
  EXPECT_NE(out.find("rest_length ["), std::string::npos) << out;
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
