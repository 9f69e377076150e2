#include "tune/objective.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace simgrad::tune {
namespace {

// x^2 with its gradient, counting calls so tests can see what ran.
struct Square {
  int value_calls = 0;
  int gradient_calls = 0;

  FunctionObjective objective(bool with_value) {
    FunctionObjective::ValueFunction value;
    if (with_value) {
      value = [this](std::span<const double> x) {
        ++value_calls;
        return x[0] * x[0];
      };
    }
    return FunctionObjective(1, value, [this](std::span<const double> x, std::span<double> g) {
      ++gradient_calls;
      g[0] = 2 * x[0];
      return x[0] * x[0];
    });
  }
};

TEST(CountingObjective, CountsRolloutsAndBackwardPassesByConvention) {
  Square square;
  FunctionObjective inner = square.objective(true);
  CountingObjective counted(inner);
  const std::vector<double> x{3.0};
  std::vector<double> gradient(1);
  EXPECT_EQ(counted.value(x), 9.0);
  EXPECT_EQ(counted.value_and_gradient(x, gradient), 9.0);
  EXPECT_EQ(gradient[0], 6.0);
  EXPECT_EQ(counted.rollouts(), 2);
  EXPECT_EQ(counted.gradient_evaluations(), 1);
  EXPECT_EQ(counted.dimension(), 1u);
  counted.restore_counts(40, 7);
  counted.value(x);
  EXPECT_EQ(counted.rollouts(), 41);
  EXPECT_EQ(counted.gradient_evaluations(), 7);
}

TEST(FunctionObjective, FallsBackToTheGradientFunctionForValues) {
  Square square;
  FunctionObjective objective = square.objective(false);
  const std::vector<double> x{-2.0};
  EXPECT_EQ(objective.value(x), 4.0);
  EXPECT_EQ(square.gradient_calls, 1);
}

TEST(FunctionObjective, PrefersTheValueFunctionWhenGiven) {
  Square square;
  FunctionObjective objective = square.objective(true);
  const std::vector<double> x{-2.0};
  EXPECT_EQ(objective.value(x), 4.0);
  EXPECT_EQ(square.value_calls, 1);
  EXPECT_EQ(square.gradient_calls, 0);
}

TEST(FunctionObjective, RequiresAGradientFunction) {
  EXPECT_THROW(FunctionObjective(1, nullptr, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::tune
