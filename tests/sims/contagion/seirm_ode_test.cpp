#include "sims/contagion/seirm_ode.hpp"

#include <gtest/gtest.h>

#include "contagion_fixtures.hpp"
#include "core/gradcheck.hpp"
#include "core/rollout.hpp"
#include "sims/contagion/tunables.hpp"

namespace simgrad::contagion {
namespace {

TEST(SeirmOde, GradientMatchesFiniteDifferencesAndPeopleAreConserved) {
  SeirmModel model;
  model.population = 70000;
  model.reset(42, 2.2, 0.01, 0.002);
  SeirmOde system(model);
  Series deaths{Count::kDeaths, {}, 1.0};
  for (int d = 7; d <= 42; d += 7) deaths.observations.push_back({d, 7, 5.0 * d / 7});
  SeirmCountLoss loss(system, {deaths, {Count::kCases, {{10, 1, 30.0}}, 0.5}}, Scale::kSqrt);
  std::vector<tune::BoundParameter> bound;
  for (const char* name : {"reproduction", "mortality", "initial_infected", "reporting"})
    bound.push_back(tune::bind(epidemic_tunables(), model.parameters, name, {}));
  tune::RolloutProblem problem(system, loss, 42, {}, std::move(bound));
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  const GradCheckReport report = check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g);
  for (const auto& c : report.checks) EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
  const auto s = problem.rollout().final_state();
  EXPECT_NEAR(s[0] + s[1] + s[2] + s[3] + s[4], 70000.0, 1e-6);
}

TEST(SeirmOde, DelayedAscertainedSeriesAndSmoothRMatchFiniteDifferences) {
  SeirmModel model;
  model.population = 70000;
  model.reset(42, 2.2, 0.01, 0.002);
  model.parameters.ascertainment.values()[0] = 0.4;
  SeirmOde system(model);
  Series deaths{Count::kDeaths, {}, 1.0, 10, Share::kReporting}, cases{Count::kCases, {}, 0.5, 3, Share::kAscertainment};
  for (int d = 7; d <= 42; d += 7) {
    deaths.observations.push_back({d, 7, 5.0 * d / 7});
    cases.observations.push_back({d, 7, 40.0});
  }
  SeirmCountLoss loss(system, {deaths, cases}, Scale::kSqrt);
  loss.set_smoothness({1.5, 2, 5});
  std::vector<tune::BoundParameter> bound;
  for (const char* name : {"reproduction", "mortality", "initial_infected", "ascertainment"})
    bound.push_back(tune::bind(epidemic_tunables(), model.parameters, name, {}));
  tune::RolloutProblem problem(system, loss, 42, {}, std::move(bound));
  for (const auto& c : testing::check_problem_gradient(problem).checks) EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
}

TEST(SeirmOde, ACountRecordedLateReadsTheDaysThatManyDaysBack) {
  std::vector<double> s(static_cast<std::size_t>(SeirmOde::kSize), 0.0);
  for (int k = 0; k < SeirmOde::kHistory; ++k) s[static_cast<std::size_t>(5 + k)] = k;  // deaths k days ago
  EXPECT_EQ(SeirmOde::count(Count::kDeaths, 7, 0, s), 0 + 1 + 2 + 3 + 4 + 5 + 6);
  EXPECT_EQ(SeirmOde::count(Count::kDeaths, 7, 10, s), 10 + 11 + 12 + 13 + 14 + 15 + 16);
  SeirmModel model;
  model.reset(14, 2.0, 0.01, 0.001);
  SeirmOde system(model);
  const Series too_late{Count::kDeaths, {{10, 7, 1.0}}, 1.0, SeirmOde::kHistory - 6};
  EXPECT_THROW({ SeirmCountLoss loss(system, {too_late}, Scale::kSqrt); }, std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::contagion
