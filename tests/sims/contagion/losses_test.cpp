#include "sims/contagion/losses.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "contagion_fixtures.hpp"
#include "core/rollout.hpp"

namespace simgrad::contagion {
namespace {

// A state by hand: agent i infected on day tau[i] (-1: never), its occupancy moved there.
std::vector<double> state_of(const Epidemic& system, const std::vector<double>& tau) {
  std::vector<double> s(static_cast<std::size_t>(system.state_size()), 0.0);
  const std::size_t n = tau.size();
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = tau[i] >= 0 ? 0.0 : 1.0;
    s[n + i] = tau[i];
    if (tau[i] >= 0) s[system.slot(static_cast<Index>(i), static_cast<int>(tau[i]))] = 1.0;
  }
  return s;
}

TEST(Losses, CountsReadEveryAgentsInfectionDay) {
  const Population pop = make_complete_population(6);
  DiseaseModel model;
  model.settings.days = 30;
  model.settings.sampled_deaths = false;
  model.reset(1, 1);
  model.parameters.mortality.value[0] = 0.25;
  Epidemic system(pop, model);
  // Exposed 3 days, infectious 5: cases on tau + 3, deaths on tau + 8.
  const std::vector<double> s = state_of(system, {-1, 2, 4, 5, 10, 12});
  EXPECT_EQ(model_count(system, Count::kInfections, 5, 1, s), 1.0);
  EXPECT_EQ(model_count(system, Count::kInfections, 5, 4, s), 3.0);   // days 2..5
  EXPECT_EQ(model_count(system, Count::kCases, 8, 4, s), 3.0);        // tau 2, 4, 5: days 5, 7, 8
  EXPECT_EQ(model_count(system, Count::kInfectious, 9, 1, s), 3.0);   // tau 2, 4, 5: infectious on days [tau + 3, tau + 8)
  EXPECT_EQ(model_count(system, Count::kDeaths, 13, 7, s), 0.25 * 3); // died on days 10, 12, 13
  std::vector<double> adjoint(s.size(), 0.0);
  model_count_adjoint(system, Count::kDeaths, 13, 7, s, 2.0, adjoint);
  EXPECT_EQ(adjoint[system.slot(1, 2)], 0.5);  // died on day 10
  EXPECT_EQ(adjoint[system.slot(4, 10)], 0.0);  // dies on day 18
  EXPECT_EQ(adjoint[system.slot(4, 3)], 0.5);  // would have died on day 11, had it been infected on day 3
  EXPECT_EQ(model.parameters.mortality.adjoint[0], 2.0 * 3);
}

TEST(Losses, TermIsTheSquaredDifferenceOnTheScaleWithTheReportedShare) {
  const Population pop = make_complete_population(4);
  DiseaseModel model;
  model.settings.days = 10;
  model.reset(1, 1);
  model.parameters.reporting.value[0] = 0.5;
  Epidemic system(pop, model);
  CountLoss loss(system, {{Count::kInfections, {{3, 3, 7.0}}, 2.0}}, Scale::kSqrt);
  const std::vector<double> s = state_of(system, {1, 2, 3, -1});
  EXPECT_TRUE(loss.has_term(3, 10));
  EXPECT_FALSE(loss.has_term(4, 10));
  const double d = std::sqrt(0.5 * 3 + 1) - std::sqrt(7.0 + 1);
  EXPECT_DOUBLE_EQ(loss.term(3, s), 2.0 * d * d);
  std::vector<double> adjoint(s.size(), 0.0);
  loss.term_adjoint(3, s, 1.0, adjoint);
  const double slope = 2.0 * 2.0 * d * 0.5 / std::sqrt(0.5 * 3 + 1);  // d term / d(reported count)
  EXPECT_DOUBLE_EQ(model.parameters.reporting.adjoint[0], slope * 3);
  EXPECT_DOUBLE_EQ(adjoint[system.slot(0, 1)], slope * 0.5);
  EXPECT_DOUBLE_EQ(adjoint[system.slot(3, 2)], slope * 0.5);  // not infected, but its near-miss counts
  EXPECT_EQ(adjoint[system.slot(3, 4)], 0.0);
}

}  // namespace
}  // namespace simgrad::contagion
