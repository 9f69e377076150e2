#include "sims/structure/vehicle.hpp"

#include <gtest/gtest.h>

#include "sims/structure/bridge_generator.hpp"

namespace simgrad::structure {
namespace {

TEST(Vehicle, AxlesSplitBetweenDeckJointsAndCrossTheWholeDeck) {
  // A 4-panel deck of 3 m (12 m); a truck of two axles 4 m apart, 9 positions of the front
  // axle from 0 to 16 m (2 m apart), so the rear axle reaches the far end at the last.
  Structure s = make_bridge(BridgeType::pratt, 4, 3.0, 3.0, {"steel", 2e11, 2.5e8, 7850, 1}, {"t", 1e-3, 1e-6, 1e-5});
  Vehicle v;
  v.deck = {0, 1, 2, 3, 4};
  v.axles = {{0.0, 100.0}, {4.0, 60.0}};
  v.positions = 9;
  const std::vector<LoadCase> cases = vehicle_load_cases(s.model, s.design, v);
  ASSERT_EQ(cases.size(), 9u);
  for (std::size_t p = 0; p < cases.size(); ++p) {
    const double front = 2.0 * static_cast<double>(p);
    double expected = 0.0;
    if (front <= 12.0) expected += 100.0;
    if (front >= 4.0 && front - 4.0 <= 12.0) expected += 60.0;
    double total = 0.0;
    for (const PointLoad& l : cases[p].loads) total -= l.force[1];
    EXPECT_NEAR(total, expected, 1e-12) << cases[p].name;
    EXPECT_TRUE(cases[p].self_weight);
    EXPECT_EQ(cases[p].gravity[1], -9.81);
  }
  // Front axle at 2 m: two thirds of its load on joint 1, one third on joint 0.
  EXPECT_EQ(cases[1].loads[0].joint, 0);
  EXPECT_NEAR(cases[1].loads[0].force[1], -100.0 / 3.0, 1e-12);
  EXPECT_EQ(cases[1].loads[1].joint, 1);
  EXPECT_NEAR(cases[1].loads[1].force[1], -200.0 / 3.0, 1e-12);
}

}  // namespace
}  // namespace simgrad::structure
