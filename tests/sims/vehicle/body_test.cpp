#include "sims/vehicle/body.hpp"

#include <gtest/gtest.h>

#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

TEST(Body, LoadsSumToWeightAndShiftRearwardUnderAcceleration) {
  const AxleLoads<double> still = axle_loads(1093.3, 9.81, 1.156, 1.422, 0.574, 0.0, 0.0);
  EXPECT_NEAR(still.front + still.rear, 1093.3 * 9.81, 1e-9);
  EXPECT_NEAR(still.front, 1093.3 * 9.81 * 1.422 / 2.578, 1e-9);
  const AxleLoads<double> accelerating = axle_loads(1093.3, 9.81, 1.156, 1.422, 0.574, 3.0, 500.0);
  EXPECT_NEAR(accelerating.front + accelerating.rear, 1093.3 * 9.81 + 500.0, 1e-9);
  EXPECT_NEAR(accelerating.rear - still.rear - 500.0 * 1.156 / 2.578, 1093.3 * 3.0 * 0.574 / 2.578, 1e-9);
}

TEST(Body, LoadGradients) {
  const auto front = [](const auto& a) { return axle_loads(a[0], 9.81, a[1], a[2], a[3], a[4], a[5]).front; };
  const auto rear = [](const auto& a) { return axle_loads(a[0], 9.81, a[1], a[2], a[3], a[4], a[5]).rear; };
  expect_gradient<6>(front, {1093.3, 1.156, 1.422, 0.574, -2.0, 300.0});
  expect_gradient<6>(rear, {1093.3, 1.156, 1.422, 0.574, 4.0, 300.0});
}

}  // namespace
}  // namespace simgrad::vehicle
