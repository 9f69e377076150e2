#include "core/gradcheck.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace simgrad {
namespace {

double rosenbrock(std::span<const double> x) {
  double f = 0.0;
  for (std::size_t i = 0; i + 1 < x.size(); ++i)
    f += 100 * std::pow(x[i + 1] - x[i] * x[i], 2) + std::pow(1 - x[i], 2);
  return f;
}

std::vector<double> rosenbrock_gradient(std::span<const double> x) {
  std::vector<double> g(x.size(), 0.0);
  for (std::size_t i = 0; i + 1 < x.size(); ++i) {
    g[i] += -400 * x[i] * (x[i + 1] - x[i] * x[i]) - 2 * (1 - x[i]);
    g[i + 1] += 200 * (x[i + 1] - x[i] * x[i]);
  }
  return g;
}

TEST(GradCheck, AcceptsTheRightGradientPerCoordinateAndAlongDirections) {
  const std::vector<double> x = {-1.2, 1.0, 0.3, 0.8};
  const auto g = rosenbrock_gradient(x);
  EXPECT_TRUE(check_gradient(rosenbrock, x, g).ok);
  GradCheckOptions random;
  random.random_directions = 6;
  const auto report = check_gradient(rosenbrock, x, g, random);
  EXPECT_TRUE(report.ok);
  EXPECT_EQ(report.checks.size(), 6u);
}

TEST(GradCheck, RejectsAWrongGradientAndAWrongSign) {
  const std::vector<double> x = {-1.2, 1.0, 0.3};
  auto g = rosenbrock_gradient(x);
  g[1] *= 1.01;
  const auto report = check_gradient(rosenbrock, x, g);
  EXPECT_FALSE(report.ok);
  EXPECT_TRUE(report.checks[0].ok);
  EXPECT_FALSE(report.checks[1].ok);
  // A tiny gradient of the wrong sign fails the sign rule even when within the tolerances.
  GradCheckOptions loose;
  loose.rtol = 10.0;
  loose.atol = 1e-12;
  EXPECT_FALSE(derivatives_agree(-1e-6, 1e-6, loose));
  EXPECT_TRUE(derivatives_agree(0.0, 1e-13, loose));
  EXPECT_FALSE(derivatives_agree(NAN, 1.0, loose));
}

}  // namespace
}  // namespace simgrad
