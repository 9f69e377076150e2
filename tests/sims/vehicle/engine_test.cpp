#include "sims/vehicle/engine.hpp"

#include <gtest/gtest.h>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

const TorqueCurve kCurve{{1000, 2000, 3000, 4500, 6500}, {130, 170, 190, 195, 150}};

TEST(Engine, CurvePassesThroughTheTableAndIsFlatOutside) {
  for (std::size_t i = 0; i < kCurve.rpm.size(); ++i) EXPECT_NEAR(curve_torque(kCurve, kCurve.rpm[i]), kCurve.torque[i], 1e-9);
  EXPECT_DOUBLE_EQ(curve_torque(kCurve, 500.0), 130.0);
  EXPECT_DOUBLE_EQ(curve_torque(kCurve, 8000.0), 150.0);
}

TEST(Engine, CurveHasAContinuousSlopeAtTheKnots) {
  // C1: the slopes just left and right of an inner knot agree.
  const double h = 1e-4;
  for (double knot : {2000.0, 3000.0, 4500.0}) {
    const double left = (curve_torque(kCurve, knot - h) - curve_torque(kCurve, knot - 2 * h)) / h;
    const double right = (curve_torque(kCurve, knot + 2 * h) - curve_torque(kCurve, knot + h)) / h;
    EXPECT_NEAR(left, right, 1e-4) << knot;
  }
}

TEST(Engine, CurveGradientInRpm) {
  for (double rpm : {1200.0, 2500.0, 3900.0, 6000.0})
    expect_gradient<1>([](const auto& a) { return curve_torque(kCurve, a[0]); }, {rpm});
}

TEST(Engine, DcMotorForceAndGradient) {
  EXPECT_DOUBLE_EQ(dc_motor_force(0.287, 0.0545, 2.0, 0.5), (0.287 - 0.109) * 0.5);
  expect_gradient<4>([](const auto& a) { return dc_motor_force(a[0], a[1], a[2], a[3]); }, {0.287, 0.0545, 1.7, 0.6});
}

}  // namespace
}  // namespace simgrad::vehicle
