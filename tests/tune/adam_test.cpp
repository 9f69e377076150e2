#include "tune/adam.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "resume_check.hpp"
#include "test_problems.hpp"

namespace simgrad::tune {
namespace {

using testing::BoxWatch;
using testing::Quadratic;
using testing::Rosenbrock;

TEST(Adam, ReachesTheMinimumOfAConvexQuadratic) {
  Quadratic quadratic = Quadratic::ellipsoid(5, 10, 0.5);
  OptimizerOptions options;
  options.learning_rate = 0.05;
  options.max_iterations = 2000;
  options.target_loss = 1e-10;
  Adam adam(options);
  const OptimizeResult result = minimize(adam, quadratic, std::vector<double>(5, 3.0));
  EXPECT_TRUE(result.reached_target);
  for (double x : result.x) EXPECT_NEAR(x, 0.5, 1e-4);
}

TEST(Adam, SolvesRosenbrockSlowly) {
  Rosenbrock rosenbrock(2);
  OptimizerOptions options;
  options.learning_rate = 0.02;
  options.max_iterations = 10000;
  options.target_loss = 1e-6;
  Adam adam(options);
  EXPECT_TRUE(minimize(adam, rosenbrock, testing::rosenbrock_start(2)).reached_target);
}

// The optimum outside the box: Adam ends exactly on the bound and never evaluates outside it.
TEST(Adam, StaysInTheBoxAndFindsABoundActiveOptimum) {
  Quadratic quadratic({2.0, -0.25}, {1.0, 1.0});
  const std::vector<double> lower{-1.0, -1.0}, upper{1.0, 1.0};
  BoxWatch watched(quadratic, lower, upper);
  OptimizerOptions options;
  options.learning_rate = 0.05;
  options.max_iterations = 3000;
  options.gradient_tolerance = 1e-7;
  Adam adam(options);
  const OptimizeResult result = minimize(adam, watched, std::vector<double>{0.0, 0.0}, lower, upper);
  EXPECT_FALSE(watched.left_box);
  EXPECT_EQ(result.x[0], 1.0);
  EXPECT_NEAR(result.x[1], -0.25, 1e-6);
}

TEST(Adam, ResumesBitForBit) {
  Rosenbrock rosenbrock(4);
  OptimizerOptions options;
  options.learning_rate = 0.01;
  const std::vector<double> lower(4, -2.0), upper(4, 2.0);
  testing::expect_exact_resume<Adam>(options, rosenbrock, testing::rosenbrock_start(4), lower,
                                     upper, 13, 40);
}

}  // namespace
}  // namespace simgrad::tune
