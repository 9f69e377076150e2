#include "tune/compare.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "test_problems.hpp"

namespace simgrad::tune {
namespace {

using testing::Quadratic;

// The project's central claim on a small case: on a 10D quadratic, gradient tuning reaches the
// target with a small fraction of the rollouts CMA-ES needs, and random search does not get there.
TEST(Compare, GradientTuningNeedsFarFewerRolloutsThanCmaEs) {
  Quadratic quadratic = Quadratic::ellipsoid(10, 100, 0.5);
  const std::vector<double> x0(10, 3.0), lower(10, -5.0), upper(10, 5.0);
  CompareOptions options;
  options.cmaes_rollouts = 20000;
  options.random_search_rollouts = 5000;
  const CompareResult comparison = compare(quadratic, x0, lower, upper, 1e-6, options);
  ASSERT_EQ(comparison.methods.size(), 3u);
  const MethodReport& gradient = comparison.methods[0];
  const MethodReport& cmaes = comparison.methods[1];
  const MethodReport& random = comparison.methods[2];
  EXPECT_EQ(gradient.method, "lbfgs");
  EXPECT_EQ(cmaes.method, "cmaes");
  EXPECT_EQ(random.method, "random_search");
  EXPECT_TRUE(gradient.result.reached_target);
  EXPECT_TRUE(cmaes.result.reached_target);
  EXPECT_FALSE(random.result.reached_target);
  EXPECT_EQ(random.result.rollouts, 5000);
  EXPECT_LT(gradient.result.rollouts * 10, cmaes.result.rollouts);
  EXPECT_EQ(gradient.result.gradient_evaluations, gradient.result.rollouts);
  EXPECT_EQ(cmaes.result.gradient_evaluations, 0);
  for (const MethodReport& report : comparison.methods) {
    EXPECT_FALSE(report.result.history.empty());
    EXPECT_GE(report.result.wall_s, 0.0);
  }
}

// Without a target (NaN), CMA-ES spends its whole budget first and its best loss becomes the
// target the others run to: a target that means something whatever the sign of the loss.
TEST(Compare, WithoutATargetTheOthersRunToWhatCmaEsReachesWithItsBudget) {
  Quadratic quadratic = Quadratic::ellipsoid(10, 100, 0.5);
  const std::vector<double> x0(10, 3.0), lower(10, -5.0), upper(10, 5.0);
  CompareOptions options;
  options.cmaes_rollouts = 1000;
  options.random_search_rollouts = 1000;
  const CompareResult comparison =
      compare(quadratic, x0, lower, upper, std::numeric_limits<double>::quiet_NaN(), options);
  const MethodReport& gradient = comparison.methods[0];
  const MethodReport& cmaes = comparison.methods[1];
  EXPECT_EQ(comparison.target_loss, cmaes.result.loss);
  EXPECT_GE(cmaes.result.rollouts, 1000);  // the whole budget (its last generation may pass it)
  EXPECT_TRUE(cmaes.result.reached_target);
  EXPECT_GT(comparison.target_loss, 0.0);
  EXPECT_TRUE(gradient.result.reached_target);
  EXPECT_LE(gradient.result.loss, comparison.target_loss);
  EXPECT_LT(gradient.result.rollouts * 10, cmaes.result.rollouts);
  EXPECT_FALSE(comparison.methods[2].result.reached_target);
}

TEST(Compare, GradientMethodIsSelectable) {
  Quadratic quadratic = Quadratic::ellipsoid(3, 1, 0.5);
  CompareOptions options;
  options.gradient_method = "adam";
  options.optimizer.learning_rate = 0.1;
  options.cmaes_rollouts = 500;
  options.random_search_rollouts = 100;
  const CompareResult comparison =
      compare(quadratic, std::vector<double>(3, 0.0), std::vector<double>(3, -1.0),
              std::vector<double>(3, 1.0), 1e-4, options);
  EXPECT_EQ(comparison.methods[0].method, "adam");
  EXPECT_TRUE(comparison.methods[0].result.reached_target);
}

// Random search cannot sample an unbounded box; the report says so instead of failing the run.
TEST(Compare, SkipsRandomSearchWithoutFiniteBounds) {
  Quadratic quadratic = Quadratic::ellipsoid(2, 1, 0.5);
  CompareOptions options;
  options.cmaes_rollouts = 300;
  const CompareResult comparison =
      compare(quadratic, std::vector<double>(2, 0.0), {}, {}, 1e-6, options);
  ASSERT_EQ(comparison.methods.size(), 3u);
  EXPECT_FALSE(comparison.methods[2].ran);
  EXPECT_NE(comparison.methods[2].skipped_because.find("finite bounds"), std::string::npos);
  EXPECT_TRUE(comparison.methods[0].ran);
}

}  // namespace
}  // namespace simgrad::tune
