#include "sims/contagion/seirm_ode.hpp"

#include <gtest/gtest.h>

#include "core/gradcheck.hpp"
#include "core/rollout.hpp"
#include "sims/contagion/parameters.hpp"

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
    bound.push_back(bind_parameter(model.parameters, {name}));
  tune::RolloutProblem problem(system, loss, 42, {}, std::move(bound));
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  const GradCheckReport report = check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g);
  for (const auto& c : report.checks) EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
  const auto s = problem.rollout().final_state();
  EXPECT_NEAR(s[0] + s[1] + s[2] + s[3] + s[4], 70000.0, 1e-6);
}

}  // namespace
}  // namespace simgrad::contagion
