// The wheel: contact-patch kinematics, slips (finite at standstill), combined-slip forces and
// wheel spin, against closed forms and central differences.
#include "sims/vehicle/wheel.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

// A passenger-car tire set from 12 scalars: lateral B C D E, longitudinal B C D E, Bx Cx By Cy.
template <class S, std::size_t N>
TireSet<S> tires_of(const std::array<S, N>& a) {
  return {{a[0], a[1], a[2], a[3], S(-0.1)}, {a[4], a[5], a[6], a[7], S(-0.1)}, a[8], a[9], a[10], a[11]};
}

TEST(Wheel, ContactPatchVelocityOfAYawingSteeredWheel) {
  // Straight ahead, no yaw: the wheel sees the body's velocity.
  const WheelVelocity<double> v = wheel_velocity(20.0, 0.0, 0.0, 1.2, 0.75, 0.0);
  EXPECT_DOUBLE_EQ(v.along, 20.0);
  EXPECT_DOUBLE_EQ(v.across, 0.0);
  // Yawing left at 0.5 rad/s: a left wheel (py > 0) is slower, a front wheel (px > 0) moves left.
  const WheelVelocity<double> y = wheel_velocity(20.0, 0.0, 0.5, 1.2, 0.75, 0.0);
  EXPECT_DOUBLE_EQ(y.along, 20.0 - 0.5 * 0.75);
  EXPECT_DOUBLE_EQ(y.across, 0.5 * 1.2);
  // A wheel steered along the patch's own velocity has no slip angle.
  const double steer = std::atan2(0.6, 19.625);
  EXPECT_NEAR(slip_angle(wheel_velocity(20.0, 0.0, 0.5, 1.2, 0.75, steer), 1.0), 0.0, 1e-15);
  expect_gradient<6>([](const auto& a) {
    const auto w = wheel_velocity(a[0], a[1], a[2], a[3], a[4], a[5]);
    return w.along + 3.0 * w.across;
  }, {18.0, 0.7, 0.3, 1.1, -0.76, 0.05});
}

TEST(Wheel, SlipsAreFiniteAtStandstillAndExactAtSpeed) {
  EXPECT_DOUBLE_EQ(slip_ratio(0.0, 0.3, 0.0, 1.0), 0.0);
  EXPECT_NEAR(slip_ratio(10.0, 0.3, 0.0, 1.0), 3.0, 1e-12);  // rounded speed: 1 m/s
  EXPECT_NEAR(slip_ratio(22.0 / 0.3, 0.3, 20.0, 0.01), 0.1, 1e-6);
  EXPECT_NEAR(slip_angle(WheelVelocity<double>{20.0, -1.0}, 0.01), std::atan(1.0 / 20.0), 1e-6);
  expect_gradient<2>([](const auto& a) { return slip_ratio(a[0], 0.31, a[1], 1.0); }, {50.0, 14.5});
  expect_gradient<2>([](const auto& a) { return slip_angle(WheelVelocity<decltype(a[0] + 0.0)>{a[0], a[1]}, 1.0); },
                     {12.0, -0.8});
}

TEST(Wheel, CombinedSlipReducesEachForceByTheOtherSlip) {
  const std::array<double, 12> a = {12.0, 1.35, 1.05, -0.1, 11.0, 1.65, 1.1, 0.0, 12.0, 1.0, 10.0, 1.0};
  const TireSet<double> t = tires_of(a);
  const std::array<double, 2> pure_x = combined_tire_forces(t, 0.05, 0.0, 4000.0, 4000.0);
  const std::array<double, 2> pure_y = combined_tire_forces(t, 0.0, 0.05, 4000.0, 4000.0);
  EXPECT_NEAR(pure_x[0], pacejka_force(t.longitudinal, 0.05, 4000.0, 4000.0), 1e-9);
  EXPECT_DOUBLE_EQ(pure_x[1], 0.0);
  EXPECT_NEAR(pure_y[1], pacejka_force(t.lateral, 0.05, 4000.0, 4000.0), 1e-9);
  const std::array<double, 2> both = combined_tire_forces(t, 0.05, 0.05, 4000.0, 4000.0);
  EXPECT_LT(both[0], pure_x[0]);
  EXPECT_LT(both[1], pure_y[1]);
  EXPECT_GT(both[1], 0.5 * pure_y[1]);
  std::array<double, 14> x{};
  for (int i = 0; i < 12; ++i) x[i] = a[i];
  x[12] = 0.04;  // kappa
  x[13] = -0.06;  // alpha
  for (int out : {0, 1})
    expect_gradient<14>([out](const auto& v) {
      return combined_tire_forces(tires_of(v), v[12], v[13], decltype(v[0] + 0.0)(3900.0), 4000.0)[out];
    }, x);
}

TEST(Wheel, AFreeWheelSpinsUpToGroundSpeed) {
  // Zero torque: the tire's force drags the wheel until its rim speed is the ground speed.
  const std::array<double, 12> a = {12.0, 1.35, 1.05, -0.1, 11.0, 1.65, 1.1, 0.0, 12.0, 1.0, 10.0, 1.0};
  const TireSet<double> t = tires_of(a);
  const double radius = 0.31, speed = 20.0, fz = 3000.0;
  double omega = 0.0;
  for (int step = 0; step < 500; ++step) {
    const double kappa = slip_ratio(omega, radius, speed, 1.0);
    const double fx = combined_tire_forces(t, kappa, 0.0, fz, fz)[0];
    const double stiffness = t.longitudinal.B * t.longitudinal.C * t.longitudinal.D * fz;
    omega = wheel_spin_step(omega, 1.2, 0.0, 0.0, fx, stiffness, smooth_abs(speed, 1.0), radius, 0.1, 0.01);
  }
  EXPECT_NEAR(omega * radius / speed, 1.0, 1e-9);
}

TEST(Wheel, SpinStepIsStableAndDifferentiable) {
  // A locked-up braking wheel at 20 m/s: explicit Euler would diverge (its slip stiffness gives a
  // relaxation time of a few ms); the linearly implicit step moves towards the slip balance.
  const double next = wheel_spin_step(60.0, 1.2, 0.0, 1500.0, -2000.0, 5.0e4, 20.0, 0.31, 0.1, 0.01);
  EXPECT_LT(next, 60.0);
  EXPECT_GT(next, 0.0);
  expect_gradient<7>([](const auto& a) {
    return wheel_spin_step(a[0], a[1], a[2], a[3], a[4], a[5], a[6], 0.31, 0.1, 0.01);
  }, {60.0, 1.2, 300.0, 1500.0, -2000.0, 5.0e4, 20.0});
  // Near standstill, where the brake's sign is smoothed.
  expect_gradient<7>([](const auto& a) {
    return wheel_spin_step(a[0], a[1], a[2], a[3], a[4], a[5], a[6], 0.31, 0.1, 0.01);
  }, {0.1, 1.2, 0.0, 800.0, 10.0, 5.0e4, 1.0});
}

}  // namespace
}  // namespace simgrad::vehicle
