#include "sims/vehicle/transmission.hpp"

#include <gtest/gtest.h>

#include <array>
#include <numbers>
#include <span>
#include <type_traits>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

const std::array<double, 5> kRatios{4.17, 2.34, 1.52, 1.14, 0.87};
const ShiftModel kShift{6000.0, 0.05};

// The BMW's gearbox at final drive `final_drive`, all in scalar S.
template <class S>
S bmw_ratio(const S& final_drive, const S& wheel_omega) {
  std::array<S, 5> ratios;
  for (std::size_t k = 0; k < 5; ++k) ratios[k] = S(kRatios[k]);
  return overall_ratio(std::span<const S>(ratios), kShift, final_drive, wheel_omega);
}

TEST(Transmission, FirstGearFromRestTopGearAtSpeed) {
  EXPECT_NEAR(bmw_ratio(3.23, 1.0), 4.17 * 3.23, 1e-6);
  EXPECT_NEAR(bmw_ratio(3.23, 400.0), 0.87 * 3.23, 1e-6);
  // Never above the shift rpm by more than the shift's width, and the ratio only falls.
  double previous = 1e9;
  for (double w = 1.0; w < 150.0; w += 0.5) {
    const double ratio = bmw_ratio(3.23, w);
    EXPECT_LE(ratio, previous + 1e-12);
    previous = ratio;
    EXPECT_LT(engine_rpm(w, ratio), 6000.0 * 1.25) << w;
  }
}

TEST(Transmission, DirectDriveWithoutGears) {
  EXPECT_DOUBLE_EQ(overall_ratio(std::span<const double>(), kShift, 5.0, 30.0), 5.0);
  EXPECT_NEAR(engine_rpm(10.0, 3.0), 30.0 * 30.0 / std::numbers::pi, 1e-12);
}

TEST(Transmission, RatioGradientInFinalDriveAndSpeedAcrossAShift) {
  // Around the 1-2 shift (wheel speed 6000 rpm / (4.17 3.23) = 46.6 rad/s) and between shifts.
  for (double w : {20.0, 45.0, 46.6, 48.0, 90.0})
    expect_gradient<2>([](const auto& a) { return bmw_ratio(a[0], a[1]); }, {3.23, w});
  // ... and in every gear ratio.
  expect_gradient<6>(
      [](const auto& a) {
        using S = std::decay_t<decltype(a[0])>;
        return overall_ratio(std::span<const S>(a.data(), 5), kShift, S(3.23), a[5]);
      },
      {4.17, 2.34, 1.52, 1.14, 0.87, 47.0});
}

}  // namespace
}  // namespace simgrad::vehicle
