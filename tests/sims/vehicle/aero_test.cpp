#include "sims/vehicle/aero.hpp"

#include <gtest/gtest.h>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

TEST(Aero, DragOpposesMotionAndGrowsWithSpeedSquared) {
  EXPECT_NEAR(aero_drag(0.35, 20.0), 0.35 * 400.0, 1e-3);
  EXPECT_NEAR(aero_drag(0.35, -20.0), -0.35 * 400.0, 1e-3);
  EXPECT_DOUBLE_EQ(aero_drag(0.35, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(aero_downforce(0.5, 10.0), 50.0);
}

TEST(Aero, Gradients) {
  for (double v : {-3.0, 0.0005, 12.0})
    expect_gradient<2>([](const auto& a) { return aero_drag(a[0], a[1]); }, {0.35, v});
  expect_gradient<2>([](const auto& a) { return aero_downforce(a[0], a[1]); }, {0.8, 25.0});
}

}  // namespace
}  // namespace simgrad::vehicle
