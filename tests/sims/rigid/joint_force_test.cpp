// Joint limits: a pendulum released above its limit comes to rest on it (the penetration its
// weight over the limit spring gives), never passes through, and its rollout gradient through
// the limit matches central differences; the hard twin is the same law switched on sharply.
#include "sims/rigid/joint_force.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/rollout.hpp"
#include "sims/rigid/losses.hpp"
#include "sims/rigid/rigid_worlds.hpp"
#include "tests/sims/rigid/test_models.hpp"
#include "tests/sims/rigid/mujoco_reference.hpp"
#include "tests/sims/rigid/rollout_gradient.hpp"

namespace simgrad::rigid {
namespace {

// A horizontal rod on a hinge whose range stops it at -0.5 rad below horizontal.
const char* kStoppedPendulum = R"(<mujoco><compiler angle="radian"/><option timestep="0.001"/><worldbody><body>
  <joint type="hinge" axis="0 -1 0" limited="true" range="-0.5 1"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02"/></body></worldbody></mujoco>)";

RigidModel stopped_pendulum() {
  auto mj = testing::load_mujoco_text(kStoppedPendulum, "stopped_pendulum");
  return testing::from_mujoco(mj->m);
}

TEST(RigidJointForce, APendulumComesToRestOnItsLimit) {
  RigidModel m = stopped_pendulum();
  m.resize(1, 0);
  double lowest = 0.0, fastest = 0.0;
  const std::vector<double> s = testing::run_steps(m, 4000, [&](const std::vector<double>& x) {
    lowest = std::min(lowest, x[0]);
    if (x[0] > -0.5) fastest = std::max(fastest, std::abs(x[1]));
  });
  // At rest on the stop the spring holds the rod's weight: k (lo - q) = m g d cos(lo).
  const Body& rod = m.bodies[1];
  const double torque = m.body_mass.values()[1] * 9.81 * rod.centre.c[0] * std::cos(-0.5);
  const double sink = torque / m.joints[0].limit_stiffness;
  EXPECT_NEAR(-0.5 - s[0], sink, 0.02 * sink);
  EXPECT_LT(std::abs(s[1]), 1e-6);
  // Striking the stop at speed v, it cannot go deeper than v / w with w = sqrt(k / I) (the
  // undamped spring's swing; the damper only shortens it).
  const double inertia = m.joints[0].limit_stiffness / (60.0 * 60.0);
  EXPECT_GT(lowest, -0.5 - sink - fastest / std::sqrt(m.joints[0].limit_stiffness / inertia)) << "the rod overshot its stop";
}

TEST(RigidJointForce, HardTwinSwitchesOnAtTheLimitExactly) {
  RigidModel m = stopped_pendulum();
  const Joint& j = m.joints[0];
  EXPECT_EQ(limit_force(j, -0.4999, 0.0, 0.0), 0.0);
  EXPECT_NEAR(limit_force(j, -0.5001, 0.0, 0.0), j.limit_stiffness * 1e-4, 1e-9 * j.limit_stiffness);
  EXPECT_GT(limit_force(j, -0.4999, 0.0, 0.002), 0.0);  // relaxed: already pushing just inside
}

TEST(RigidJointForce, GradientThroughALimit) {
  RigidModel m = stopped_pendulum();
  const int steps = 400;  // long enough to strike the stop and bounce
  m.resize(1, steps);
  m.set_differentiable(true);
  m.initial_qvel.values()[0] = -1.0;
  RigidLossSettings settings;
  settings.qpos_target = {0.2};
  settings.qpos_weight = {1.0};
  settings.qvel_target = {0.0};
  settings.qvel_weight = {0.1};
  RigidWorlds system(m);
  RigidLoss loss(m, settings);
  Rollout rollout(system, loss, steps);
  rollout.loss_and_gradient();
  for (Array<1>* a : {&m.initial_qpos, &m.initial_qvel, &m.body_mass, &m.dof_damping}) {
    const double largest = testing::expect_array_gradient(rollout, *a, "limited pendulum", 0);
    EXPECT_GT(largest, 1e-6);
  }
}

}  // namespace
}  // namespace simgrad::rigid
