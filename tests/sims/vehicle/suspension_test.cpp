// The suspension's parts: corner compression from heave, roll and pitch, strut and anti-roll
// bar forces, the body's generalised forces (virtual work), and the tire load's smooth floor.
#include "sims/vehicle/suspension.hpp"

#include <gtest/gtest.h>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

TEST(Suspension, RollCompressesTheRightAndPitchTheFront) {
  EXPECT_DOUBLE_EQ(corner_compression(0.0, 0.02, 0.0, 1.2, -0.75), 0.015);   // right corner
  EXPECT_DOUBLE_EQ(corner_compression(0.0, 0.02, 0.0, 1.2, 0.75), -0.015);   // left corner
  EXPECT_DOUBLE_EQ(corner_compression(0.0, 0.0, 0.01, 1.2, 0.75), 0.012);    // front under nose-down pitch
  EXPECT_DOUBLE_EQ(corner_compression(0.0, 0.0, 0.01, -1.4, 0.75), -0.014);  // rear
  expect_gradient<5>([](const auto& a) { return corner_compression(a[0], a[1], a[2], a[3], a[4]); },
                     {0.01, 0.02, -0.01, 1.2, -0.75});
}

TEST(Suspension, StrutSpringDamperAndBumpStop) {
  EXPECT_DOUBLE_EQ(strut_force(30000.0, 3000.0, 0.06, 5e6, 0.01, 0.1), 300.0 + 300.0);
  EXPECT_NEAR(strut_force(30000.0, 0.0, 0.06, 5e6, 0.08, 0.0), 2400.0 + 5e6 * 0.02 * 0.02, 1e-9);
  // Below and beyond the gap.
  for (double c : {0.03, 0.07})
    expect_gradient<6>([](const auto& a) { return strut_force(a[0], a[1], a[2], a[3], a[4], a[5]); },
                       {30000.0, 3000.0, 0.06, 5e6, c, -0.2});
  EXPECT_DOUBLE_EQ(anti_roll_force(18000.0, 0.01, -0.01), 360.0);
  expect_gradient<3>([](const auto& a) { return anti_roll_force(a[0], a[1], a[2]); }, {18000.0, 0.01, -0.02});
}

TEST(Suspension, BodyForcesAreTheVirtualWorkOfTheCornerForces) {
  // Generalised force along a coordinate = -sum F_i dc_i/dq: check against the compression map.
  const std::array<double, 4> f = {900.0, -400.0, 250.0, 120.0};
  const std::array<double, 4> px = {1.15, 1.15, -1.42, -1.42}, py = {0.76, -0.76, 0.765, -0.765};
  const std::array<double, 3> g = suspension_body_forces(f, px, py);
  for (int q = 0; q < 3; ++q) {
    double work = 0.0;
    for (int i = 0; i < 4; ++i)
      work -= f[i] * corner_compression(q == 0 ? 1.0 : 0.0, q == 1 ? 1.0 : 0.0, q == 2 ? 1.0 : 0.0, px[i], py[i]);
    EXPECT_NEAR(g[q], work, 1e-9) << q;
  }
  expect_gradient<4>([&](const auto& a) {
    using S = decltype(a[0] + 0.0);
    const std::array<S, 4> x = {S(px[0]), S(px[1]), S(px[2]), S(px[3])}, y = {S(py[0]), S(py[1]), S(py[2]), S(py[3])};
    const std::array<S, 3> r = suspension_body_forces(a, x, y);
    return r[0] + 2.0 * r[1] + 3.0 * r[2];
  }, f);
}

TEST(Suspension, TireLoadIsStaticPlusSuspensionAndNeverNegative) {
  EXPECT_NEAR(tire_load(3000.0, 500.0, 30.0), 3500.0, 0.1);
  EXPECT_GT(tire_load(3000.0, -5000.0, 30.0), 0.0);
  EXPECT_LT(tire_load(3000.0, -5000.0, 30.0), 0.2);  // w^2 / (4 |f|)
  expect_gradient<3>([](const auto& a) { return tire_load(a[0], a[1], a[2]); }, {3000.0, -2990.0, 30.0});
}

}  // namespace
}  // namespace simgrad::vehicle
