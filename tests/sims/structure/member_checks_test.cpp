#include "sims/structure/member_checks.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace simgrad::structure {
namespace {

const MemberProperties<double> kStrut{1e-3, 2e-7, 1e-5, 200e9, 250e6, 7850.0, 1.0};

TEST(MemberChecks, EulerLoadIsPiSquaredEIOverKLSquared) {
  // 200 GPa x 2e-7 m^4 over (0.7 x 3 m)^2, a fixed-pinned column.
  const double expected = std::numbers::pi * std::numbers::pi * 200e9 * 2e-7 / (2.1 * 2.1);
  EXPECT_NEAR(euler_load(200e9, 2e-7, 3.0, 0.7), expected, 1e-9 * expected);
}

TEST(MemberChecks, SlenderStrutBucklesAtTheEulerLoad) {
  // 3 m long: Euler stress 43.9 MPa, below half the yield stress, so Euler governs.
  const double load = euler_load(kStrut.young, kStrut.inertia, 3.0, 1.0);
  const StressRatio<double> r = stress_ratio(kStrut, 3.0, 1.0, -load, 0.0, false, true);
  EXPECT_EQ(r.state, MemberState::compression);
  EXPECT_NEAR(r.ratio, 1.0, 1e-12);
}

TEST(MemberChecks, StockyStrutFollowsJohnsonsParabolaWhichMeetsEulerSmoothly) {
  const double fy = kStrut.yield;
  // Where Euler's stress is half the yield stress, both curves give fy / 2 with slope 1.
  EXPECT_DOUBLE_EQ(critical_stress(0.5 * fy, fy), 0.5 * fy);
  const double h = 1e-4 * fy;
  const double slope = (critical_stress(0.5 * fy + h, fy) - critical_stress(0.5 * fy - h, fy)) / (2 * h);
  EXPECT_NEAR(slope, 1.0, 1e-4);
  // A very stocky strut approaches the squash load, never above it.
  EXPECT_NEAR(critical_stress(1e6 * fy, fy), fy, 1e-6 * fy);
  EXPECT_LT(critical_stress(2.0 * fy, fy), fy);
  EXPECT_DOUBLE_EQ(critical_stress(2.0 * fy, fy), fy * (1.0 - 1.0 / 8.0));
}

TEST(MemberChecks, TensionIsCheckedAgainstYieldAndBendingAddsItsStress) {
  const StressRatio<double> t = stress_ratio(kStrut, 3.0, 1.0, 125e3, 0.0, false, true);
  EXPECT_EQ(t.state, MemberState::tension);
  EXPECT_DOUBLE_EQ(t.ratio, 0.5);
  // Without buckling, compression is checked against yield like tension.
  EXPECT_DOUBLE_EQ(stress_ratio(kStrut, 3.0, 1.0, -125e3, 0.0, false, false).ratio, 0.5);
  // A frame member adds M / (fy S): 1250 N m over 250 MPa x 1e-5 m^3 is 0.5.
  EXPECT_DOUBLE_EQ(stress_ratio(kStrut, 3.0, 1.0, 125e3, -1250.0, true, true).ratio, 1.0);
}

}  // namespace
}  // namespace simgrad::structure
