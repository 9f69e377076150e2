#include "sims/vehicle/transmission.hpp"

#include <gtest/gtest.h>

#include <numbers>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

const Gearbox kBox{{4.17, 2.34, 1.52, 1.14, 0.87}, 6000.0, 0.05};

TEST(Transmission, FirstGearFromRestTopGearAtSpeed) {
  EXPECT_NEAR(overall_ratio(kBox, 3.23, 1.0), 4.17 * 3.23, 1e-6);
  EXPECT_NEAR(overall_ratio(kBox, 3.23, 400.0), 0.87 * 3.23, 1e-6);
  // Never above the shift rpm by more than the shift's width, and the ratio only falls.
  double previous = 1e9;
  for (double w = 1.0; w < 150.0; w += 0.5) {
    const double ratio = overall_ratio(kBox, 3.23, w);
    EXPECT_LE(ratio, previous + 1e-12);
    previous = ratio;
    EXPECT_LT(engine_rpm(w, ratio), 6000.0 * 1.25) << w;
  }
}

TEST(Transmission, DirectDriveWithoutGears) {
  EXPECT_DOUBLE_EQ(overall_ratio(Gearbox{}, 5.0, 30.0), 5.0);
  EXPECT_NEAR(engine_rpm(10.0, 3.0), 30.0 * 30.0 / std::numbers::pi, 1e-12);
}

TEST(Transmission, RatioGradientInFinalDriveAndSpeedAcrossAShift) {
  // Around the 1-2 shift (wheel speed 6000 rpm / (4.17 3.23) = 46.6 rad/s) and between shifts.
  for (double w : {20.0, 45.0, 46.6, 48.0, 90.0})
    expect_gradient<2>([](const auto& a) { return overall_ratio(kBox, a[0], a[1]); }, {3.23, w});
}

}  // namespace
}  // namespace simgrad::vehicle
