// The differential: an open one splits torque evenly; a limited-slip one moves torque to the
// slower wheel and always passes on the whole axle torque.
#include "sims/vehicle/differential.hpp"

#include <gtest/gtest.h>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

TEST(Differential, OpenSplitsEvenlyWhateverTheWheelsDo) {
  const std::array<double, 2> t = differential_split(800.0, 80.0, 40.0, 0.0);
  EXPECT_DOUBLE_EQ(t[0], 400.0);
  EXPECT_DOUBLE_EQ(t[1], 400.0);
}

TEST(Differential, LimitedSlipFeedsTheSlowerWheel) {
  const std::array<double, 2> t = differential_split(800.0, 80.0, 40.0, 5.0);
  EXPECT_DOUBLE_EQ(t[0] + t[1], 800.0);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 5.0 * 40.0);  // the left wheel is faster by 40 rad/s
  for (int out : {0, 1})
    expect_gradient<4>([out](const auto& a) { return differential_split(a[0], a[1], a[2], a[3])[out]; },
                       {800.0, 80.0, 40.0, 5.0});
}

}  // namespace
}  // namespace simgrad::vehicle
