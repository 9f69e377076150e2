// Contagion scenario files: the R curve and active-contact schedule load, and the scenario's
// gradient agrees with finite differences; bad schedules are reported with the field.
#include "scenario/contagion_scenario.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/gradcheck.hpp"
#include "scenario/scenario.hpp"

namespace simgrad::scenario {
namespace {

namespace fs = std::filesystem;

const std::string kCasesData = R"({"file": "cases.csv", "column": "cases", "count": "cases", "window": 7})";
const std::string kTuned = R"([{"name": "reproduction"}, {"name": "initial_infected"}])";

// A scenario file over three weeks of made-up daily cases and deaths, with `population`,
// `disease`, `loss`, `data` and tuned parameters.
fs::path write_scenario(const std::string& population, const std::string& disease, const std::string& loss = "{}",
                        const std::string& data = kCasesData, const std::string& tuned = kTuned) {
  const fs::path dir = fs::temp_directory_path() / ("simgrad_contagion_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream csv(dir / "cases.csv");
  csv << "date,cases,deaths\n";
  for (int d = 0; d < 21; ++d) csv << d << "," << 2 + d << "," << d / 4 << "\n";
  std::ofstream(dir / "scenario.json") << R"({
  "simulator": "contagion",
  "population": )" + population + R"(,
  "disease": )" + disease + R"(,
  "parameters": {"reproduction": 3, "initial_infected": 0.05},
  "data": )" + data + R"(,
  "loss": )" + loss + R"(,
  "report": {"seeds": 1, "baselines": false},
  "tune": {"parameters": )" + tuned + R"(, "iterations": 1}
})";
  return dir / "scenario.json";
}

const std::string kSynthetic = R"({"synthetic": {"agents": 300, "seed": 2}})";

TEST(ContagionScenario, LinearRAndActiveContactScheduleLoadAndTheirGradientMatchesFiniteDifferences) {
  const std::string disease = R"({"exposed_days": 2, "infectious_days": 4, "straight_through": false, "temperature": 0.7,
    "reproduction_curve": "linear", "active_share": [[1, 1, 1, 0.5], [1, 0, 0.3, 0.5]]})";
  // The loss is the mean over two seeds.
  auto scenario = load_scenario(write_scenario(kSynthetic, disease, R"({"seeds": 2})"));
  tune::Problem& problem = scenario->problem();
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  const GradCheckReport report = check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g);
  for (const auto& c : report.checks) EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
  EXPECT_NE(g[0], 0.0);
}

// The message of loading a scenario with this population and disease.
std::string load_error(const std::string& population, const std::string& disease) {
  try {
    load_scenario(write_scenario(population, disease));
  } catch (const ScenarioError& e) {
    return e.path() + ": " + e.message();
  }
  return "no error";
}

TEST(ContagionScenario, BadSchedulesNameTheirField) {
  EXPECT_NE(load_error(R"({"complete": 100})", R"({"active_share": [[0.5]]})").find("active_share"), std::string::npos);
  EXPECT_NE(load_error(kSynthetic, R"({"active_share": [[1, 1, 1, 1.5]]})").find("active_share[0]"), std::string::npos);
  EXPECT_NE(load_error(kSynthetic, R"({"active_share": [[1, 1]]})").find("active_share[0]"), std::string::npos);
  EXPECT_NE(load_error(kSynthetic, R"({"reproduction_curve": "cubic"})").find("reproduction_curve"), std::string::npos);
}

TEST(ContagionScenario, DeathsAndAscertainedCasesWithDelaysAndASmoothRMatchFiniteDifferences) {
  const std::string data = R"({"file": "cases.csv", "column": "deaths", "count": "deaths", "window": 7, "delay": 2,
    "also_fit": [{"column": "cases", "count": "cases", "delay": 1, "share": "ascertainment", "weight": 0.5}]})";
  const std::string tuned = R"([{"name": "reproduction"}, {"name": "mortality"}, {"name": "ascertainment"}])";
  const std::string disease = R"({"exposed_days": 2, "infectious_days": 4, "straight_through": false, "temperature": 0.7})";
  auto scenario = load_scenario(
      write_scenario(kSynthetic, disease, R"({"reproduction_smoothness": 2, "smoothness_order": 1})", data, tuned));
  tune::Problem& problem = scenario->problem();
  const std::vector<double> x = problem.initial();
  ASSERT_EQ(x.size(), 3u + 2u);  // R of the 3 weeks the cases see, mortality, ascertainment
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  const GradCheckReport report = check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g);
  for (const auto& c : report.checks) {
    EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
    EXPECT_NE(c.ad, 0.0) << c.label;
  }
  const nlohmann::json summary = scenario->summary();
  ASSERT_EQ(summary.at("also_fit").size(), 1u);
  EXPECT_EQ(summary["also_fit"][0]["count"], "cases");
  EXPECT_EQ(summary["also_fit"][0]["data"].size(), 3u);
}

TEST(ContagionScenario, BadJointSeriesNameTheirField) {
  auto error_of = [](const std::string& data) {
    try {
      load_scenario(write_scenario(kSynthetic, "{}", "{}", data));
    } catch (const ScenarioError& e) {
      return e.path() + ": " + e.message();
    }
    return std::string("no error");
  };
  const std::string head = R"({"file": "cases.csv", "column": "deaths", "count": "deaths", "window": 7, )";
  EXPECT_NE(error_of(head + R"("also_fit": [{"column": "cases", "count": "cases", "share": "everyone"}]})").find("also_fit[0].share"),
            std::string::npos);
  EXPECT_NE(error_of(head + R"("also_fit": [{"column": "tests", "count": "cases"}]})").find("no column"), std::string::npos);
  EXPECT_NE(error_of(head + R"("delay": -1})").find("delay"), std::string::npos);
}

}  // namespace
}  // namespace simgrad::scenario
