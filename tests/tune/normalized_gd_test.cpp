#include "tune/normalized_gd.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "resume_check.hpp"
#include "test_problems.hpp"

namespace simgrad::tune {
namespace {

using testing::BoxWatch;
using testing::Quadratic;

TEST(NormalizedGradientDescent, ReachesTheMinimumOfAConvexQuadratic) {
  Quadratic quadratic = Quadratic::ellipsoid(5, 10, 0.5);
  OptimizerOptions options;
  options.learning_rate = 0.5;
  options.max_iterations = 500;
  options.target_loss = 1e-10;
  NormalizedGradientDescent descent(options);
  const OptimizeResult result = minimize(descent, quadratic, std::vector<double>(5, 3.0));
  EXPECT_TRUE(result.reached_target);
  for (double x : result.x) EXPECT_NEAR(x, 0.5, 1e-4);
}

// A gradient of 1e12 moves the point no further than one of 1: that is the method's point.
TEST(NormalizedGradientDescent, StepLengthIgnoresTheGradientScale) {
  Quadratic steep({0.0}, {1e12});
  OptimizerOptions options;
  options.learning_rate = 0.25;
  options.max_iterations = 2;
  NormalizedGradientDescent descent(options);
  descent.init(steep, std::vector<double>{1.0});
  descent.iterate();
  EXPECT_EQ(descent.current_x()[0], 0.75);
}

// A worse point halves the step and sends the next step back out from the best point.
TEST(NormalizedGradientDescent, ShrinksAndReturnsToTheAnchorAfterAWorsePoint) {
  Quadratic quadratic({0.0}, {1.0});
  OptimizerOptions options;
  options.learning_rate = 3.0;
  NormalizedGradientDescent descent(options);
  descent.init(quadratic, std::vector<double>{1.0});
  descent.iterate();  // anchor 1.0, next point 1 - 3 = -2
  EXPECT_EQ(descent.current_x()[0], -2.0);
  descent.iterate();  // -2 is worse: step 1.5 from the anchor
  EXPECT_EQ(descent.step_length(), 1.5);
  EXPECT_EQ(descent.current_x()[0], -0.5);
  descent.iterate();  // -0.5 is better: step grows to 1.8 from there
  EXPECT_DOUBLE_EQ(descent.step_length(), 1.8);
  EXPECT_DOUBLE_EQ(descent.current_x()[0], 1.3);
}

// Components pinned by a bound are left out of the direction, so free ones get the full step.
TEST(NormalizedGradientDescent, SpendsTheStepOnComponentsThatCanMove) {
  Quadratic quadratic({5.0, 0.0}, {1.0, 1.0});
  const std::vector<double> lower{-1.0, -1.0}, upper{1.0, 1.0};
  BoxWatch watched(quadratic, lower, upper);
  OptimizerOptions options;
  options.learning_rate = 0.1;
  NormalizedGradientDescent descent(options);
  descent.init(watched, std::vector<double>{1.0, 0.5}, lower, upper);
  descent.iterate();
  EXPECT_EQ(descent.current_x()[0], 1.0);
  EXPECT_DOUBLE_EQ(descent.current_x()[1], 0.4);
  const OptimizeResult result = run(descent);
  EXPECT_FALSE(watched.left_box);
  EXPECT_EQ(result.x[0], 1.0);
  EXPECT_NEAR(result.x[1], 0.0, 1e-8);
}

TEST(NormalizedGradientDescent, ResumesBitForBit) {
  testing::Rosenbrock rosenbrock(3);
  OptimizerOptions options;
  options.learning_rate = 0.1;
  testing::expect_exact_resume<NormalizedGradientDescent>(
      options, rosenbrock, testing::rosenbrock_start(3), {}, {}, 9, 30);
}

}  // namespace
}  // namespace simgrad::tune
