#include "sims/contagion/calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "contagion_fixtures.hpp"
#include "core/rollout.hpp"
#include "sims/contagion/seirm_ode.hpp"

namespace simgrad::contagion {
namespace {

TEST(Calibration, SeirmBaselineFitsTheFittedWeeksOfAnSeirmEpidemic) {
  // Data: an SEIRM epidemic with known parameters, weekly deaths over 12 weeks.
  SeirmModel truth;
  truth.population = 50000;
  truth.reset(84, 1.8, 0.01, 0.002);
  SeirmOde system(truth);
  std::vector<Observation> weeks;
  for (int d = 6; d < 84; d += 7) weeks.push_back({d, 7, 0.0});
  RolloutOptions options;
  options.observer = [&](int t, std::span<const double> s) {
    for (Observation& o : weeks)
      if (o.day == t) o.value = SeirmOde::count(Count::kDeaths, 7, 0, s);
  };
  struct NoLoss : TrajectoryLoss {
    bool has_term(int, int) const override { return false; }
    double term(int, std::span<const double>) override { return 0.0; }
    void term_adjoint(int, std::span<const double>, double, std::span<double>) override {}
  } none;
  Rollout(system, none, 84, options).loss();
  const Series fit{Count::kDeaths, std::vector<Observation>(weeks.begin(), weeks.begin() + 8), 1.0};
  SeirmBaseline baseline{50000, 3.0, 5.0, 300, false, 7, {}, {}};
  const std::vector<double> forecast = seirm_fit_and_forecast(baseline, {fit}, Scale::kSqrt, weeks, 84);
  // The fitted weeks closely. The forecast only within a factor of two: the last fitted weeks' R
  // is seen through a few deaths only, and the fit overshoots it (the truth turns in week 9,
  // the fitted model later).
  for (std::size_t k = 0; k < weeks.size(); ++k)
    EXPECT_NEAR(forecast[k], weeks[k].value, (k < 8 ? 0.02 : 1.0) * weeks[k].value + 0.5) << "week " << k;
}

TEST(Calibration, HardModelSpreadOverSeedsIsReproducible) {
  const Population pop = testing::small_population(2000);
  DiseaseModel model = testing::small_model(pop, 28, 0.01);
  model.settings.straight_through = false;  // re-scoring uses the hard model anyway
  const std::vector<Observation> weeks = {{6, 7, 0}, {13, 7, 0}, {20, 7, 0}, {27, 7, 0}};
  const Spread a = hard_counts_over_seeds(pop, model, Series{Count::kInfections, {}, 1.0}, weeks, 28, 8);
  const Spread b = hard_counts_over_seeds(pop, model, Series{Count::kInfections, {}, 1.0}, weeks, 28, 8);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_GT(a.mean[1], 0.0);
  EXPECT_GT(a.sd[1], 0.0);
  for (std::size_t k = 0; k < weeks.size(); ++k) EXPECT_EQ(std::floor(a.mean[k] * 8), a.mean[k] * 8);  // whole agents
}

}  // namespace
}  // namespace simgrad::contagion
