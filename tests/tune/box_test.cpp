#include "tune/box.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace simgrad::tune {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Box, ProjectsComponentwise) {
  std::vector<double> x{-3.0, 0.5, 9.0, 4.0};
  const std::vector<double> lower{-1.0, 0.0, 0.0, -kInf}, upper{1.0, 1.0, 2.0, kInf};
  project_onto_box(x, lower, upper);
  EXPECT_EQ(x, (std::vector<double>{-1.0, 0.5, 2.0, 4.0}));
  EXPECT_TRUE(inside_box(x, lower, upper));
  x[2] = std::nextafter(2.0, 3.0);
  EXPECT_FALSE(inside_box(x, lower, upper));
}

// At a bound, a gradient pushing outward is not a reason to keep going.
TEST(Box, ProjectedGradientVanishesAtABoundActiveOptimum) {
  const std::vector<double> lower{0.0, 0.0}, upper{1.0, 1.0};
  const std::vector<double> x{1.0, 0.0};
  EXPECT_EQ(projected_gradient_norm(x, std::vector<double>{-5.0, 3.0}, lower, upper), 0.0);
  EXPECT_EQ(projected_gradient_norm(x, std::vector<double>{0.25, 3.0}, lower, upper), 0.25);
  EXPECT_TRUE(std::isnan(projected_gradient_norm(
      x, std::vector<double>{std::nan(""), 0.0}, lower, upper)));
}

TEST(Box, KnowsWhichComponentsAreBlocked) {
  EXPECT_TRUE(blocked_by_bound(1.0, -2.0, 0.0, 1.0));
  EXPECT_FALSE(blocked_by_bound(1.0, 2.0, 0.0, 1.0));
  EXPECT_TRUE(blocked_by_bound(0.0, 2.0, 0.0, 1.0));
  EXPECT_FALSE(blocked_by_bound(0.5, 2.0, 0.0, 1.0));
}

TEST(Box, DetectsInfiniteBounds) {
  EXPECT_TRUE(all_finite(std::vector<double>{0.0, 1.0}));
  EXPECT_FALSE(all_finite(std::vector<double>{0.0, kInf}));
}

}  // namespace
}  // namespace simgrad::tune
