#include "tune/lbfgs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "resume_check.hpp"
#include "test_problems.hpp"

namespace simgrad::tune {
namespace {

using testing::BoxWatch;
using testing::Quadratic;
using testing::Rosenbrock;
using testing::rosenbrock_start;

// Options that ask for a tight solution, so the iteration counts below mean convergence.
OptimizerOptions tight() {
  OptimizerOptions options;
  options.gradient_tolerance = 1e-9;
  options.max_iterations = 500;
  return options;
}

// Unconstrained Rosenbrock from the standard start in the number of iterations the reference
// L-BFGS-B needs (tens), for the classic 2D and the chained 10D versions.
class LbfgsRosenbrock : public ::testing::TestWithParam<std::size_t> {};

TEST_P(LbfgsRosenbrock, ConvergesFromTheStandardStart) {
  const std::size_t n = GetParam();
  Rosenbrock rosenbrock(n);
  Lbfgs lbfgs(tight());
  const OptimizeResult result = minimize(lbfgs, rosenbrock, rosenbrock_start(n));
  EXPECT_LT(result.iterations, 100) << result.stop_reason;
  EXPECT_LT(result.loss, 1e-14);
  for (double x : result.x) EXPECT_NEAR(x, 1.0, 1e-6);
  EXPECT_EQ(result.stop_reason, "projected gradient below tolerance");
  EXPECT_EQ(result.rollouts, result.gradient_evaluations);
}

INSTANTIATE_TEST_SUITE_P(Dimensions, LbfgsRosenbrock, ::testing::Values(2, 10));

// A convex quadratic with condition number 100 and a known minimum. (Unit-step L-BFGS needs
// more iterations on quadratics than one might guess; a plain two-loop L-BFGS takes the same 64.)
TEST(Lbfgs, SolvesAConvexQuadratic) {
  Quadratic quadratic = Quadratic::ellipsoid(10, 100, 0.5);
  Lbfgs lbfgs(tight());
  const OptimizeResult result = minimize(lbfgs, quadratic, std::vector<double>(10, 3.0));
  EXPECT_LT(result.iterations, 80);
  for (double x : result.x) EXPECT_NEAR(x, 0.5, 1e-9);
}

// Loss and gradient at the start count as the first iteration's first rollout.
TEST(Lbfgs, CountsEveryEvaluationAsARolloutWithABackwardPass) {
  Rosenbrock rosenbrock(2);
  OptimizerOptions options = tight();
  options.max_iterations = 1;
  Lbfgs lbfgs(options);
  const OptimizeResult result = minimize(lbfgs, rosenbrock, rosenbrock_start(2));
  EXPECT_GE(result.rollouts, 2);
  EXPECT_EQ(result.rollouts, result.gradient_evaluations);
  EXPECT_EQ(lbfgs.memory_used(), 1);
}

// Rosenbrock restricted to x0 <= 0.5: the optimum (0.5, 0.25) sits on the bound.
TEST(Lbfgs, FindsABoundActiveOptimumWithoutLeavingTheBox) {
  Rosenbrock rosenbrock(2);
  const std::vector<double> lower{-2, -2}, upper{0.5, 2};
  BoxWatch watched(rosenbrock, lower, upper);
  Lbfgs lbfgs(tight());
  const OptimizeResult result = minimize(lbfgs, watched, rosenbrock_start(2), lower, upper);
  EXPECT_FALSE(watched.left_box);
  EXPECT_EQ(result.x[0], 0.5);  // exactly on the bound, not a rounding hair inside
  EXPECT_NEAR(result.x[1], 0.25, 1e-8);
  EXPECT_LT(result.iterations, 100);
}

// Many active bounds at once: a quadratic centred outside a box on every other axis.
TEST(Lbfgs, HandlesManyActiveBounds) {
  std::vector<double> center(10), scale(10, 1.0);
  for (int i = 0; i < 10; ++i) center[i] = i % 2 == 0 ? 5.0 : 0.3;
  Quadratic quadratic(center, scale);
  const std::vector<double> lower(10, -1.0), upper(10, 1.0);
  BoxWatch watched(quadratic, lower, upper);
  Lbfgs lbfgs(tight());
  const OptimizeResult result =
      minimize(lbfgs, watched, std::vector<double>(10, -0.5), lower, upper);
  EXPECT_FALSE(watched.left_box);
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(result.x[i], i % 2 == 0 ? 1.0 : 0.3, 1e-9);
  EXPECT_LT(result.iterations, 20);
}

// A start outside the box is projected before anything is evaluated.
TEST(Lbfgs, ProjectsTheStart) {
  Quadratic quadratic({0.0}, {1.0});
  const std::vector<double> lower{1.0}, upper{2.0};
  BoxWatch watched(quadratic, lower, upper);
  Lbfgs lbfgs(tight());
  const OptimizeResult result = minimize(lbfgs, watched, std::vector<double>{7.0}, lower, upper);
  EXPECT_FALSE(watched.left_box);
  EXPECT_EQ(result.x[0], 1.0);
}

// A loss that goes non-finite beyond a cliff: the line search backs off instead of failing.
TEST(Lbfgs, BacksOffFromNonFiniteLosses) {
  FunctionObjective cliff(
      1, nullptr, [](std::span<const double> x, std::span<double> g) {
        if (x[0] > 2.0) {
          g[0] = std::numeric_limits<double>::quiet_NaN();
          return std::numeric_limits<double>::quiet_NaN();
        }
        g[0] = 2 * (x[0] - 1.9);
        return (x[0] - 1.9) * (x[0] - 1.9);
      });
  Lbfgs lbfgs(tight());
  const OptimizeResult result = minimize(lbfgs, cliff, std::vector<double>{-40.0});
  EXPECT_NEAR(result.x[0], 1.9, 1e-6);
}

// The target stops the run as soon as an iteration reaches it.
TEST(Lbfgs, StopsAtTheTargetLoss) {
  Rosenbrock rosenbrock(2);
  OptimizerOptions options = tight();
  options.target_loss = 1e-3;
  Lbfgs lbfgs(options);
  const OptimizeResult result = minimize(lbfgs, rosenbrock, rosenbrock_start(2));
  EXPECT_TRUE(result.reached_target);
  EXPECT_LE(result.loss, 1e-3);
  EXPECT_EQ(result.stop_reason, "target loss reached");
}

// Results must not depend on how many threads Eigen may use for its matrix products.
TEST(Lbfgs, SameBitsAtAnyThreadCount) {
  Rosenbrock rosenbrock(4000);
  OptimizerOptions options = tight();
  options.max_iterations = 15;
  const auto run_with_threads = [&](int threads) {
    Eigen::setNbThreads(threads);
    Lbfgs lbfgs(options);
    return minimize(lbfgs, rosenbrock, rosenbrock_start(4000)).x;
  };
  const std::vector<double> single = run_with_threads(1);
  const std::vector<double> several = run_with_threads(4);
  Eigen::setNbThreads(0);
  EXPECT_EQ(single, several);
}

TEST(Lbfgs, ResumesBitForBit) {
  Rosenbrock rosenbrock(6);
  const std::vector<double> lower(6, -2.0), upper(6, 0.9);
  testing::expect_exact_resume<Lbfgs>(tight(), rosenbrock, rosenbrock_start(6), lower, upper, 7, 25);
}

}  // namespace
}  // namespace simgrad::tune
