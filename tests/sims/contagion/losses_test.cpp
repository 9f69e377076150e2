#include "sims/contagion/losses.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "contagion_fixtures.hpp"
#include "core/gradcheck.hpp"
#include "core/rollout.hpp"
#include "sims/contagion/tunables.hpp"

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
  model.parameters.mortality.values()[0] = 0.25;
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
  EXPECT_EQ(model.parameters.mortality.adjoints()[0], 2.0 * 3);
}

TEST(Losses, TermIsTheSquaredDifferenceOnTheScaleWithTheReportedShare) {
  const Population pop = make_complete_population(4);
  DiseaseModel model;
  model.settings.days = 10;
  model.reset(1, 1);
  model.parameters.reporting.values()[0] = 0.5;
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
  EXPECT_DOUBLE_EQ(model.parameters.reporting.adjoints()[0], slope * 3);
  EXPECT_DOUBLE_EQ(adjoint[system.slot(0, 1)], slope * 0.5);
  EXPECT_DOUBLE_EQ(adjoint[system.slot(3, 2)], slope * 0.5);  // not infected, but its near-miss counts
  EXPECT_EQ(adjoint[system.slot(3, 4)], 0.0);
}

TEST(Losses, ACountRecordedLateIsTheCountOfTheWindowThatManyDaysEarlier) {
  const Population pop = make_complete_population(6);
  DiseaseModel model;
  model.settings.days = 30;
  model.settings.sampled_deaths = false;
  model.settings.count_window = 7 + 4;  // a week's window recorded 4 days late
  model.reset(1, 1);
  model.parameters.mortality.values()[0] = 0.25;
  Epidemic system(pop, model);
  const std::vector<double> s = state_of(system, {-1, 2, 4, 5, 10, 12});
  // Cases (tau + 3) on days 5, 7, 8, 13, 15; recorded 4 days late, the window (9, 16] holds those of (5, 12].
  EXPECT_EQ(model_count(system, Count::kCases, 16, 7, s, 4), 2.0);
  EXPECT_EQ(model_count(system, Count::kCases, 12, 7, s), 2.0);
  // Deaths (tau + 8) on days 10, 12, 13, 18, 20: recorded 4 days late, (15, 22] holds (11, 18].
  EXPECT_EQ(model_count(system, Count::kDeaths, 22, 7, s, 4), 0.25 * 3);
  std::vector<double> adjoint(s.size(), 0.0);
  model_count_adjoint(system, Count::kCases, 16, 7, s, 1.0, adjoint, 4);
  EXPECT_EQ(adjoint[system.slot(3, 5)], 1.0);  // case on day 8: recorded on day 12
  EXPECT_EQ(adjoint[system.slot(3, 2)], 0.0);  // a case on day 5 would be recorded on day 9, outside
  // A delay beyond the agents' history is an error, not a wrong count.
  EXPECT_THROW(model_count(system, Count::kDeaths, 22, 7, s, 6), std::invalid_argument);
}

TEST(Losses, AscertainedSeriesScaleByTheAscertainmentAndReportedOnesByTheReporting) {
  const Population pop = make_complete_population(4);
  DiseaseModel model;
  model.settings.days = 10;
  model.reset(1, 1);
  model.parameters.reporting.values()[0] = 0.5;
  model.parameters.ascertainment.values()[0] = 0.25;
  Epidemic system(pop, model);
  Series reported{Count::kInfections, {{3, 3, 7.0}}, 1.0};
  Series ascertained{Count::kInfections, {{3, 3, 7.0}}, 1.0, 0, Share::kAscertainment};
  CountLoss loss(system, {reported, ascertained}, Scale::kLinear);
  const std::vector<double> s = state_of(system, {1, 2, 3, -1});
  EXPECT_DOUBLE_EQ(loss.term(3, s), (0.5 * 3 - 7) * (0.5 * 3 - 7) + (0.25 * 3 - 7) * (0.25 * 3 - 7));
  std::vector<double> adjoint(s.size(), 0.0);
  loss.term_adjoint(3, s, 1.0, adjoint);
  EXPECT_DOUBLE_EQ(model.parameters.reporting.adjoints()[0], 2.0 * (0.5 * 3 - 7) * 3);
  EXPECT_DOUBLE_EQ(model.parameters.ascertainment.adjoints()[0], 2.0 * (0.25 * 3 - 7) * 3);
}

TEST(Losses, RoughnessOfRVanishesOnTheCurvesItPrefersAndItsGradientMatchesFiniteDifferences) {
  Array<1> r(6, true);
  // A log-linear R (falling 20% a week) has no second differences; a flat one no first either.
  for (std::size_t w = 0; w < 6; ++w) r.values()[w] = 2.0 * std::pow(0.8, static_cast<double>(w));
  EXPECT_NEAR(reproduction_roughness({3.0, 2, 0}, r, false, 0.0), 0.0, 1e-24);
  EXPECT_NEAR(reproduction_roughness({3.0, 1, 0}, r, false, 0.0), 3.0 * 5 * std::log(0.8) * std::log(0.8), 1e-12);
  // A bent curve; only the first `weeks` entries count.
  r.assign({2.0, 1.5, 1.6, 0.9, 0.7, 5.0}, true);
  const double bent = std::log(1.6) - 2 * std::log(1.5) + std::log(2.0);
  EXPECT_NEAR(reproduction_roughness({1.0, 2, 3}, r, false, 0.0), bent * bent, 1e-12);
  for (int order : {1, 2}) {
    const ReproductionSmoothness smooth{0.7, order, 5};
    std::fill(r.adjoints().begin(), r.adjoints().end(), 0.0);
    reproduction_roughness(smooth, r, true, 1.0);
    const GradCheckReport report = check_gradient(
        [&](std::span<const double> p) {
          Array<1> q;
          q.assign(p, true);
          return reproduction_roughness(smooth, q, false, 0.0);
        },
        r.values(), r.adjoints());
    for (const auto& c : report.checks) EXPECT_TRUE(c.ok) << "order " << order << " " << c.label << " ad " << c.ad << " fd " << c.fd;
    EXPECT_EQ(r.adjoints()[5], 0.0);  // past the penalised weeks
    EXPECT_NE(r.adjoints()[0], 0.0);
  }
}

TEST(Losses, JointCasesAndDeathsWithDelaysAscertainmentAndSmoothRMatchFiniteDifferences) {
  const int days = 28;
  const Population pop = testing::small_population(500);
  DiseaseModel model = testing::small_model(pop, days);
  model.settings.straight_through = false;  // the relaxed twin: smooth in the parameters with the noise fixed
  model.settings.count_window = 7 + 5;
  model.parameters.initial_infected.values()[0] = 0.05;
  model.parameters.reproduction.assign({3.0, 2.4, 2.0, 1.5, 1.2}, true);
  model.parameters.mortality.values()[0] = 0.2;
  model.parameters.ascertainment.values()[0] = 0.3;
  Epidemic system(pop, model);
  Series deaths{Count::kDeaths, {}, 1.0, 5, Share::kReporting}, cases{Count::kCases, {}, 0.5, 2, Share::kAscertainment};
  for (int d = 6; d < days; d += 7) {
    deaths.observations.push_back({d, 7, 1.0 + d / 7});
    cases.observations.push_back({d, 7, 4.0 + d / 7});
  }
  CountLoss loss(system, {deaths, cases}, Scale::kSqrt);
  loss.set_smoothness({2.0, 2, 4});
  std::vector<tune::BoundParameter> bound;
  bound.push_back(tune::bind(epidemic_tunables(), model.parameters, "reproduction", {.leading = 4}));  // the weeks the 28 days reach
  for (const char* name : {"mortality", "initial_infected", "ascertainment"})
    bound.push_back(tune::bind(epidemic_tunables(), model.parameters, name, {}));
  tune::RolloutProblem problem(system, loss, days, {}, std::move(bound));
  GradCheckOptions options;
  options.atol = 1e-7;
  const GradCheckReport report = testing::check_problem_gradient(problem, options);
  for (const auto& c : report.checks) {
    EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
    EXPECT_NE(c.ad, 0.0) << c.label;  // every parameter reaches the loss
  }
}

}  // namespace
}  // namespace simgrad::contagion
