// The rigid losses' apex term: a box thrown upward reaches the height the term predicts, the
// prediction holds still through free flight (energy: h + v^2 / 2g), and a rollout's gradient
// through it agrees with central differences.
#include "sims/rigid/losses.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/rollout.hpp"
#include "sims/rigid/mjcf.hpp"
#include "sims/rigid/rigid_worlds.hpp"
#include "tests/sims/rigid/test_models.hpp"
#include "tests/sims/rigid/rollout_gradient.hpp"

namespace simgrad::rigid {
namespace {

// A free box at height 1 m thrown up at 3 m/s and sideways at 1 m/s, spinning, under gravity,
// touching nothing.
RigidModel thrown_box(int steps) {
  RigidModel m = parse_mjcf(R"(<mujoco><option timestep="0.001" gravity="0 0 -9.81"/><worldbody>
      <body name="box" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.05 0.02" mass="1"/></body>
      </worldbody></mujoco>)",
                            "thrown_box");
  m.resize(1, steps);
  m.initial_qvel.values()[0] = 1.0;
  m.initial_qvel.values()[2] = 3.0;
  m.initial_qvel.values()[4] = 2.0;
  return m;
}

// Model m's state after `steps` steps; `highest` rises to the greatest height the box passed.
std::vector<double> fly(RigidModel& m, int steps, double& highest) {
  return testing::run_steps(m, steps, [&highest](const std::vector<double>& s) { highest = std::max(highest, s[2]); });
}

TEST(RigidLosses, TheApexOfAThrownBoxIsItsHeightPlusRiseSquaredOverTwoG) {
  const double expected = 1.0 + 3.0 * 3.0 / (2.0 * 9.81);
  RigidLossSettings settings;
  settings.apex_joint = 0;
  double highest = 0.0;
  for (const int steps : {1, 100, 200, 300}) {  // rising until 0.306 s
    RigidModel m = thrown_box(steps);
    const std::vector<double> s = fly(m, steps, highest);
    RigidLoss loss(m, settings);
    // Semi-implicit Euler loses g dt / 2 of rise per step's worth of height: within 1e-3 m.
    EXPECT_NEAR(loss.apex(s, 0), expected, 2e-3) << steps << " steps";
    EXPECT_NEAR(loss.term(steps, s), -loss.apex(s, 0), 0.0);
  }
  RigidModel m = thrown_box(600);
  fly(m, 600, highest);
  EXPECT_NEAR(highest, expected, 2e-3);  // the height it did reach
}

TEST(RigidLosses, ApexGradientMatchesCentralDifferences) {
  RigidModel m = thrown_box(200);
  m.set_differentiable(true);
  RigidLossSettings settings;
  settings.apex_joint = 0;
  settings.apex_weight = 2.0;
  RigidWorlds system(m);
  RigidLoss loss(m, settings);
  Rollout rollout(system, loss, 200);
  rollout.loss_and_gradient();
  EXPECT_GT(testing::expect_array_gradient(rollout, m.initial_qvel, "apex initial_qvel"), 1e-3);
  EXPECT_GT(testing::expect_array_gradient(rollout, m.initial_qpos, "apex initial_qpos"), 1e-3);
}

}  // namespace
}  // namespace simgrad::rigid
