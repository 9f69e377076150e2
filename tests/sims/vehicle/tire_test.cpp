#include "sims/vehicle/tire.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

// A Magic Formula from five scalars B, C, D, E, load sensitivity.
template <class S>
MagicFormula<S> formula(const std::array<S, 7>& a) {
  return {a[0], a[1], a[2], a[3], a[4]};
}

TEST(Tire, PacejkaPeakAndSlopeMatchTheCoefficients) {
  // Peak D Fz (at nominal load) and slope B C D Fz at zero slip: what B, C, D mean.
  const MagicFormula<double> mf{10.0, 1.4, 1.05, -0.5, -0.2};
  const double fz = 4000.0;
  double peak = 0.0;
  for (double a = 0.0; a < 0.5; a += 1e-4) peak = std::max(peak, pacejka_force(mf, a, fz, fz));
  EXPECT_NEAR(peak, 1.05 * fz, 1e-3 * fz);
  const double h = 1e-7;
  EXPECT_NEAR((pacejka_force(mf, h, fz, fz) - pacejka_force(mf, -h, fz, fz)) / (2 * h), 10.0 * 1.4 * 1.05 * fz, 1e-3 * fz);
  // Load sensitivity: 10% more load, 2% less friction coefficient.
  double peak_loaded = 0.0;
  for (double a = 0.0; a < 0.5; a += 1e-4) peak_loaded = std::max(peak_loaded, pacejka_force(mf, a, 1.1 * fz, fz));
  EXPECT_NEAR(peak_loaded, 1.05 * (1.0 - 0.02) * 1.1 * fz, 1e-3 * fz);
}

TEST(Tire, PacejkaGradientInEveryInput) {
  const auto f = [](const auto& a) { return pacejka_force(formula(a), a[5], a[6], 3500.0); };
  for (double slip : {-0.3, -0.02, 0.05, 0.15, 0.4})
    expect_gradient<7>(f, {12.3, 1.35, 1.05, -0.3, -0.18, slip, 3900.0});
}

TEST(Tire, LinearTireIsStiffnessTimesSlip) {
  EXPECT_DOUBLE_EQ(linear_tire_force(80000.0, 0.02), 1600.0);
  expect_gradient<2>([](const auto& a) { return linear_tire_force(a[0], a[1]); }, {80000.0, -0.03});
}

TEST(Tire, FrictionEllipseShrinksLateralForceUnderLongitudinalForce) {
  EXPECT_DOUBLE_EQ(friction_ellipse_scale(0.0, 5000.0), 1.0);
  EXPECT_NEAR(friction_ellipse_scale(3000.0, 5000.0), 0.8, 1e-12);
  EXPECT_NEAR(friction_ellipse_scale(-3000.0, 5000.0), 0.8, 1e-12);
  EXPECT_NEAR(friction_ellipse_scale(6000.0, 5000.0), 0.1, 1e-12);  // capped, still finite
  expect_gradient<2>([](const auto& a) { return friction_ellipse_scale(a[0], a[1]); }, {2500.0, 5200.0});
}

TEST(Tire, TractionLimitKeepsSmallForcesAndCapsLargeOnes) {
  EXPECT_NEAR(traction_limit(1000.0, 5000.0), 1000.0, 1.0);
  EXPECT_LT(traction_limit(50000.0, 5000.0), 5000.0);
  EXPECT_GT(traction_limit(50000.0, 5000.0), 4999.0);
  EXPECT_NEAR(traction_limit(-50000.0, 5000.0), -traction_limit(50000.0, 5000.0), 1e-12);
  expect_gradient<2>([](const auto& a) { return traction_limit(a[0], a[1]); }, {4000.0, 5200.0});
}

TEST(Tire, CombinedSlipWeightIsOneAtPureSlipAndFalls) {
  EXPECT_DOUBLE_EQ(combined_slip_weight(7.0, 1.1, 0.0), 1.0);
  EXPECT_LT(combined_slip_weight(7.0, 1.1, 0.2), combined_slip_weight(7.0, 1.1, 0.1));
  expect_gradient<3>([](const auto& a) { return combined_slip_weight(a[0], a[1], a[2]); }, {7.1, 1.07, 0.12});
}

TEST(Tire, RollingResistanceOpposesMotion) {
  EXPECT_NEAR(rolling_resistance(100.0, 10.0, 0.1), 100.0, 1e-9);
  EXPECT_NEAR(rolling_resistance(100.0, -10.0, 0.1), -100.0, 1e-9);
  EXPECT_DOUBLE_EQ(rolling_resistance(100.0, 0.0, 0.1), 0.0);
  expect_gradient<2>([](const auto& a) { return rolling_resistance(a[0], a[1], 0.1); }, {150.0, 0.05});
}

}  // namespace
}  // namespace simgrad::vehicle
