// The score-function estimator of d E[count] / dR agrees with finite differences of the hard
// model averaged over seeds (it is unbiased); the straight-through gradient has a smaller spread.
#include "sims/contagion/estimators.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <tuple>

#include "contagion_fixtures.hpp"
#include "core/parallel.hpp"

namespace simgrad::contagion {
namespace {

// A small outbreak whose weekly cases grow with R.
EstimatorComparison small_comparison(Sampler sampler, double temperature, int seeds) {
  set_thread_count(1);  // runs this small are quickest on one thread
  const Population pop = testing::small_population(400);
  DiseaseModel model = testing::small_model(pop, 21, 0.02);
  model.settings.sampler = sampler;
  model.settings.temperature = temperature;
  const EstimatorComparison c = compare_estimators(pop, model, {Count::kCases, 20, 7}, seeds, 0.3);
  set_thread_count(0);
  return c;
}

void print(const char* name, const EstimatorStats& s) {
  std::printf("  %-34s mean %9.3f  sd %9.3f  se %7.3f\n", name, s.mean, s.sd, s.standard_error);
}

TEST(Estimators, ScoreFunctionAgreesWithFiniteDifferencesOverSeedsAndStraightThroughVariesLess) {
  const EstimatorComparison c = small_comparison(Sampler::kGumbelSoftmax, 0.5, 300);
  std::printf("d E[cases in week 3] / dR, %.1f cases on average, 300 seeds:\n", c.expected_count);
  print("finite differences (h 0.3, CRN)", c.finite_difference);
  print("score function, leave-one-out", c.score_function);
  print("straight-through Gumbel-softmax 0.5", c.straight_through);
  const EstimatorStats& fd = c.finite_difference;
  ASSERT_GT(fd.mean, 4.0 * fd.standard_error);  // the reference is clearly non-zero
  const double se = std::hypot(c.score_function.standard_error, fd.standard_error);
  EXPECT_LT(std::abs(c.score_function.mean - fd.mean), 4.0 * se);
  EXPECT_LT(c.straight_through.sd, c.score_function.sd);
  EXPECT_GT(c.straight_through.mean, 0.0);  // the sign agrees
}

// The table of the README (run with --gtest_also_run_disabled_tests): bias and spread of the
// straight-through gradient by sampler and temperature, over 2,000 seeds.
TEST(Estimators, DISABLED_TableOfBiasAndSpread) {
  const int seeds = 2000;
  for (const auto& [sampler, temperature, name] :
       {std::tuple{Sampler::kGumbelSoftmax, 0.1, "straight-through Gumbel-softmax 0.1"},
        std::tuple{Sampler::kGumbelSoftmax, 0.5, "straight-through Gumbel-softmax 0.5"},
        std::tuple{Sampler::kGumbelSoftmax, 1.0, "straight-through Gumbel-softmax 1.0"},
        std::tuple{Sampler::kStraightThrough, 1.0, "straight-through Bernoulli"}}) {
    const EstimatorComparison c = small_comparison(sampler, temperature, seeds);
    std::printf("%.1f cases on average, %d seeds\n", c.expected_count, seeds);
    print("finite differences (h 0.3, CRN)", c.finite_difference);
    print("score function, leave-one-out", c.score_function);
    print(name, c.straight_through);
  }
}

}  // namespace
}  // namespace simgrad::contagion
