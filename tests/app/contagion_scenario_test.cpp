// Contagion scenario files: the R curve and active-contact schedule load, and the scenario's
// gradient agrees with finite differences; bad schedules are reported with the field.
#include "app/contagion_scenario.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/scenario.hpp"
#include "core/gradcheck.hpp"

namespace simgrad::app {
namespace {

namespace fs = std::filesystem;

// A scenario file over two weeks of made-up daily cases, with `population`, `disease` and `loss` sections.
fs::path write_scenario(const std::string& population, const std::string& disease, const std::string& loss = "{}") {
  const fs::path dir = fs::temp_directory_path() / ("simgrad_contagion_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream csv(dir / "cases.csv");
  csv << "date,cases\n";
  for (int d = 0; d < 14; ++d) csv << d << "," << 2 + d << "\n";
  std::ofstream(dir / "scenario.json") << R"({
  "simulator": "contagion",
  "population": )" + population + R"(,
  "disease": )" + disease + R"(,
  "parameters": {"reproduction": 3, "initial_infected": 0.05},
  "data": {"file": "cases.csv", "column": "cases", "count": "cases", "window": 7},
  "loss": )" + loss + R"(,
  "report": {"seeds": 1, "baselines": false},
  "tune": {"parameters": [{"name": "reproduction"}, {"name": "initial_infected"}], "iterations": 1}
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

}  // namespace
}  // namespace simgrad::app
