// Springs between bodies: two free blocks on a spring, without gravity, oscillate at
// sqrt(k / mu) (mu the reduced mass) about their centre of mass, which keeps its momentum; the
// gradient of a rollout through the spring's stiffness, the start and the masses against central
// differences, with a rest length and without.
#include "sims/rigid/body_spring_force.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/rollout.hpp"
#include "sims/rigid/losses.hpp"
#include "sims/rigid/mjcf.hpp"
#include "sims/rigid/rigid_worlds.hpp"
#include "tests/sims/rigid/rollout_gradient.hpp"

namespace simgrad::rigid {
namespace {

// Two free blocks of 1 kg and 3 kg, 0.5 m apart along x, without gravity, joined centre to centre
// by a spring of rest length `length` and stiffness 200 N/m.
RigidModel blocks_on_a_spring(double length, double damping = 0.0) {
  RigidModel m = parse_mjcf(R"(<mujoco><option gravity="0 0 0" timestep="0.0005"/><worldbody>
      <body name="a" pos="0 0 1"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
      <body name="b" pos="0.5 0 1"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="3"/></body>
      </worldbody></mujoco>)",
                            "blocks_on_a_spring");
  m.body_springs.push_back({.body_a = 1, .body_b = 2, .length = length, .damping = damping});
  m.spring_stiffness.assign({200.0}, false);
  return m;
}

TEST(RigidBodySpring, TwoBlocksOscillateAtRootKOverReducedMassAndKeepTheirMomentum) {
  // Stretched 0.1 m past its rest length of 0.4 m and let go: the gap closes to its least after
  // half a period, pi sqrt(mu / k).
  RigidModel m = blocks_on_a_spring(0.4);
  const double mu = 1.0 * 3.0 / 4.0, half_period = M_PI * std::sqrt(mu / 200.0);
  const int steps = static_cast<int>(std::lround(1.5 * half_period / m.settings.timestep));
  m.resize(1, steps);
  m.initial_qvel.values()[1] = 0.3;  // both drifting along y: the pair's momentum is 1.2 kg m/s
  m.initial_qvel.values()[7] = 0.3;
  RigidWorlds worlds(m);
  std::vector<double> s(static_cast<std::size_t>(worlds.state_size())), next(s.size());
  worlds.initial_state(s);
  double least_gap = INFINITY, at = 0.0;
  for (int t = 0; t < steps; ++t) {
    worlds.step(t, s, next, {});
    s.swap(next);
    const double gap = s[7] - s[0];
    if (gap < least_gap) least_gap = gap, at = (t + 1) * m.settings.timestep;
    // Momentum: qvel's linear parts are world-frame velocities.
    const double px = 1.0 * s[14] + 3.0 * s[20], py = 1.0 * s[15] + 3.0 * s[21];
    ASSERT_NEAR(px, 0.0, 1e-12);
    ASSERT_NEAR(py, 1.2, 1e-12);
  }
  EXPECT_NEAR(at, half_period, 2.0 * m.settings.timestep);
  EXPECT_NEAR(least_gap, 0.3, 1e-4);  // symmetric about the rest length
}

// The gradient of a rollout against central differences through the spring's stiffness, the
// start and the masses.
void expect_spring_gradient(double length) {
  RigidModel m = blocks_on_a_spring(length, 0.5);
  m.body_springs[0].point_a = {{0.05, 0.02, 0.0}};
  m.body_springs[0].point_b = {{-0.05, 0.0, 0.03}};
  const int steps = 200;
  m.resize(1, steps);
  m.set_differentiable(true);
  m.initial_qvel.values()[1] = 0.3;
  m.initial_qvel.values()[4] = 1.0;  // a spin of block a, so that the springs' points swing
  RigidLossSettings settings;
  settings.reach_body = 2;
  settings.reach_point = {{0.05, 0.0, 0.0}};
  settings.reach_target = {{0.2, 0.1, 1.0}};
  RigidWorlds system(m);
  RigidLoss loss(m, settings);
  Rollout rollout(system, loss, steps);
  rollout.loss_and_gradient();
  const std::string label = "length " + std::to_string(length);
  EXPECT_GT(testing::expect_array_gradient(rollout, m.spring_stiffness, label + " spring_stiffness"), 1e-6);
  EXPECT_GT(testing::expect_array_gradient(rollout, m.initial_qvel, label + " initial_qvel"), 1e-6);
  EXPECT_GT(testing::expect_array_gradient(rollout, m.body_mass, label + " body_mass"), 1e-6);
}

TEST(RigidBodySpring, GradientMatchesCentralDifferencesWithARestLength) { expect_spring_gradient(0.4); }

TEST(RigidBodySpring, GradientMatchesCentralDifferencesAtZeroRestLength) { expect_spring_gradient(0.0); }

}  // namespace
}  // namespace simgrad::rigid
