#include "tune/levenberg_marquardt.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "resume_check.hpp"
#include "test_problems.hpp"

namespace simgrad::tune {
namespace {

using testing::Quadratic;
using testing::Rosenbrock;
using testing::rosenbrock_start;

OptimizerOptions tight() {
  OptimizerOptions o;
  o.max_iterations = 200;
  o.gradient_tolerance = 1e-10;
  return o;
}

// The residuals' sum of squares is the loss the other methods minimise.
TEST(LevenbergMarquardt, RosenbrockResidualsSquareToItsLoss) {
  Rosenbrock rosenbrock(4);
  const std::vector<double> x = {-1.2, 1.0, 0.3, 2.0};
  std::vector<double> r;
  ASSERT_TRUE(rosenbrock.residuals(x, r));
  double sum = 0;
  for (double v : r) sum += v * v;
  EXPECT_NEAR(sum, rosenbrock.value(x), 1e-12 * rosenbrock.value(x));
}

// Gauss-Newton steps follow the curved valley: far fewer iterations than L-BFGS's dozens.
TEST(LevenbergMarquardt, SolvesRosenbrockInFewIterations) {
  Rosenbrock rosenbrock(2);
  LevenbergMarquardt lm(tight());
  const OptimizeResult result = minimize(lm, rosenbrock, rosenbrock_start(2));
  EXPECT_LT(result.loss, 1e-16);
  EXPECT_NEAR(result.x[0], 1.0, 1e-8);
  EXPECT_NEAR(result.x[1], 1.0, 1e-8);
  EXPECT_LE(result.iterations, 25);
  // Each iteration costs one rollout per parameter for the Jacobian, and one per damping trial.
  EXPECT_GE(result.rollouts, 1 + 3 * result.iterations - 2);
  EXPECT_EQ(result.gradient_evaluations, 0);
}

TEST(LevenbergMarquardt, StaysInTheBox) {
  Rosenbrock rosenbrock(2);
  const std::vector<double> lower = {-2.0, -1.0}, upper = {0.5, 2.0};
  LevenbergMarquardt lm(tight());
  const OptimizeResult result = minimize(lm, rosenbrock, rosenbrock_start(2), lower, upper);
  EXPECT_LE(result.x[0], 0.5);
  // The constrained optimum lies on x0 = 0.5, where the valley gives x1 = 0.25.
  EXPECT_NEAR(result.x[0], 0.5, 1e-6);
  EXPECT_NEAR(result.x[1], 0.25, 1e-6);
}

TEST(LevenbergMarquardt, RefusesALossThatIsNotASumOfSquares) {
  Quadratic quadratic({0.0, 0.0}, {1.0, 2.0});
  LevenbergMarquardt lm(tight());
  const std::vector<double> x0 = {1.0, 1.0};
  EXPECT_THROW(minimize(lm, quadratic, x0), std::invalid_argument);
}

TEST(LevenbergMarquardt, ResumesBitForBit) {
  Rosenbrock rosenbrock(6);
  const std::vector<double> lower(6, -5.0), upper(6, 5.0);
  testing::expect_exact_resume<LevenbergMarquardt>(tight(), rosenbrock, rosenbrock_start(6), lower, upper, 4, 12);
}

}  // namespace
}  // namespace simgrad::tune
