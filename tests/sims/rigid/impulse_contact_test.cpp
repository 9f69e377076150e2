// Impulse contact with time-of-impact correction: momentum and energy across a collision (kept
// with restitution 1, lost by the closed-form amount below it), Newton's cradle, the gradient
// against central differences within one contact pattern, friction clipped to its cone, and the
// wrong sign of the naive variant's gradient on a single bounce (DiffTaichi's point).
#include "sims/rigid/impulse_contact.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/rollout.hpp"
#include "sims/rigid/losses.hpp"
#include "sims/rigid/mjcf.hpp"
#include "sims/rigid/rigid_worlds.hpp"
#include "tests/sims/rigid/test_models.hpp"
#include "tests/sims/rigid/rollout_gradient.hpp"

namespace simgrad::rigid {
namespace {

// MJCF of spheres (radius 0.05, mass from `densities`) at `xs` along x in zero gravity, each on
// slide joints in x and y (`planar`) or in x only, with a wall (a plane facing -x) at `wall` if
// it is finite. No damping, no friction.
RigidModel balls(const std::vector<double>& xs, const std::vector<double>& densities, bool planar,
                 double wall = INFINITY, const std::vector<double>& ys = {}) {
  std::string xml = R"(<mujoco><option timestep="0.01" gravity="0 0 0"/><worldbody>)";
  if (std::isfinite(wall)) xml += "<geom name=\"wall\" type=\"plane\" size=\"1 1 1\" pos=\"" + std::to_string(wall) +
                                  " 0 0\" zaxis=\"-1 0 0\" friction=\"0\"/>";
  for (std::size_t i = 0; i < xs.size(); ++i) {
    xml += "<body pos=\"" + std::to_string(xs[i]) + " " + std::to_string(ys.empty() ? 0.0 : ys[i]) + " 0\">";
    xml += "<joint type=\"slide\" axis=\"1 0 0\"/>";
    if (planar) xml += "<joint type=\"slide\" axis=\"0 1 0\"/>";
    xml += "<geom type=\"sphere\" size=\"0.05\" friction=\"0\" density=\"" + std::to_string(densities[i]) + "\"/></body>";
  }
  RigidModel m = parse_mjcf(xml + "</worldbody></mujoco>", "balls.xml");
  m.settings.contact.model = ContactModel::kImpulse;
  return m;
}

// Kinetic energy and momentum along x and y of sliding balls (joints x, y per body) in state s.
struct Motion {
  double energy = 0.0, px = 0.0, py = 0.0;
};
Motion motion(const RigidModel& m, const std::vector<double>& s) {
  Motion out;
  const double* qvel = s.data() + m.nq;
  for (int j = 0; j < static_cast<int>(m.joints.size()); ++j) {
    const Joint& joint = m.joints[static_cast<std::size_t>(j)];
    const double mass = m.body_mass.values()[static_cast<std::size_t>(joint.body)], v = qvel[joint.dof_address];
    out.energy += 0.5 * mass * v * v;
    (joint.axis.c[0] != 0.0 ? out.px : out.py) += mass * v;
  }
  return out;
}

// Two balls of different masses meeting off-centre: the normal through their centres at impact
// is at an angle to the approach, so both momentum components and the energy are exercised.
RigidModel oblique_pair(double restitution) {
  RigidModel m = balls({0.0, 0.3}, {1000.0, 2500.0}, true, INFINITY, {0.0, 0.06});
  m.resize(1, 0);
  m.initial_qvel.values()[0] = 1.0;    // the first ball along x
  m.initial_qvel.values()[3] = -0.2;   // the second towards it in y
  m.restitution.values()[0] = restitution;
  return m;
}

TEST(ImpulseContact, AnElasticCollisionKeepsMomentumAndEnergy) {
  RigidModel m = oblique_pair(1.0);
  const Motion before = motion(m, testing::run_steps(m, 0));
  const std::vector<double> after_state = testing::run_steps(m, 40);
  const Motion after = motion(m, after_state);
  EXPECT_GT(after_state[m.nq + 2], 0.1);  // the second ball was hit and moves on along x
  EXPECT_NEAR(after.energy, before.energy, 1e-12 * before.energy);
  EXPECT_NEAR(after.px, before.px, 1e-12);
  EXPECT_NEAR(after.py, before.py, 1e-12);
}

TEST(ImpulseContact, AnInelasticCollisionLosesTheClosedFormEnergy) {
  // Restitution e leaves 1 - e^2 of the kinetic energy of the approach along the normal:
  // dE = (1 - e^2) mu v_n^2 / 2 with the reduced mass mu = m1 m2 / (m1 + m2).
  const double e = 0.6;
  RigidModel m = oblique_pair(e);
  const std::vector<double> start = testing::run_steps(m, 0);
  const Motion before = motion(m, start);
  // The impact's normal and approach speed, from the straight-line paths before it.
  const double dx = 0.3, dy = 0.06, vx = -1.0, vy = -0.2, reach = 0.1;
  const double b = dx * vx + dy * vy, a = vx * vx + vy * vy, c = dx * dx + dy * dy - reach * reach;
  const double s = (-b - std::sqrt(b * b - a * c)) / a;
  const double nx = (dx + s * vx) / reach, ny = (dy + s * vy) / reach, vn = nx * vx + ny * vy;
  const double m1 = m.body_mass.values()[1], m2 = m.body_mass.values()[2], mu = m1 * m2 / (m1 + m2);
  const Motion after = motion(m, testing::run_steps(m, 40));
  EXPECT_NEAR(before.energy - after.energy, 0.5 * (1.0 - e * e) * mu * vn * vn, 1e-12 * before.energy);
  EXPECT_NEAR(after.px, before.px, 1e-12);
  EXPECT_NEAR(after.py, before.py, 1e-12);
}

TEST(ImpulseContact, NewtonsCradleWithRestitutionOne) {
  // Five touching balls in a row on x slides; the first, 0.1 m back, strikes at 1 m/s.
  std::vector<double> xs = {-0.1};
  for (int i = 1; i < 5; ++i) xs.push_back(0.1 * i);
  RigidModel m = balls(xs, std::vector<double>(5, 1000.0), false);
  m.resize(1, 0);
  m.initial_qvel.values()[0] = 1.0;
  const std::vector<double> s = testing::run_steps(m, 50);
  const double* qvel = s.data() + m.nq;
  EXPECT_NEAR(qvel[4], 1.0, 1e-12);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(qvel[i], 0.0, 1e-12) << "ball " << i;
  // The last ball left when the first arrived, 0.1 s in, and has moved on for 0.4 s.
  EXPECT_NEAR(s[4] - m.qpos0[4], 0.4, 1e-12);
  EXPECT_NEAR(s[0] - m.qpos0[0], 0.1, 1e-12);
}

TEST(ImpulseContact, FrictionAtABounceIsClippedToTheCone) {
  // A ball on x and y slides strikes a wall facing -x at 1 m/s while sliding along it at 0.5 m/s,
  // restitution 0.5: the normal impulse is 1.5 m, so friction mu takes at most 1.5 mu off the
  // sliding speed, and never more than stops it.
  for (const double mu : {0.2, 1.0}) {
    RigidModel m = balls({0.0}, {1000.0}, true, 0.1);
    m.resize(1, 0);
    m.initial_qvel.values()[0] = 1.0;
    m.initial_qvel.values()[1] = 0.5;
    m.restitution.values()[0] = 0.5;
    m.geom_friction.values()[0] = mu;
    const std::vector<double> s = testing::run_steps(m, 10);
    EXPECT_NEAR(s[m.nq], -0.5, 1e-12) << "mu " << mu;
    EXPECT_NEAR(s[m.nq + 1], std::max(0.5 - 1.5 * mu, 0.0), 1e-12) << "mu " << mu;
  }
}

// A ball on an x slide moving at 1 m/s towards a wall that its surface reaches when its centre
// is at kTouch (after 0.3037 s, inside a step), bouncing with restitution 0.8, for 0.5 s; the
// loss is its final x (a reach term towards a target far behind, so the loss grows with x).
constexpr double kTouch = 0.3037;
struct Bounce {
  RigidModel model;
  RigidLossSettings loss;
};
Bounce bounce(ContactModel contact) {
  Bounce b{balls({0.0}, {1000.0}, false, kTouch + 0.05), {}};
  b.model.settings.contact.model = contact;
  b.model.resize(1, 50);
  b.model.set_differentiable(true);
  b.model.initial_qvel.values()[0] = 1.0;
  b.model.restitution.values()[0] = 0.8;
  b.loss.reach_body = 1;
  b.loss.reach_target = {{-10.0, 0.0, 0.0}};
  return b;
}

// dL/d(start x) and dL/d(start v) of the bounce, and the loss.
struct BounceGradient {
  double loss, dx, dv;
};
BounceGradient bounce_gradient(ContactModel contact) {
  Bounce b = bounce(contact);
  RigidWorlds system(b.model);
  RigidLoss loss(b.model, b.loss);
  Rollout rollout(system, loss, b.model.steps);
  const double l = rollout.loss_and_gradient();
  if (contact == ContactModel::kImpulse) {
    // Within one contact pattern (a small step) the derived gradient is exact.
    testing::expect_array_gradient(rollout, b.model.initial_qpos, "bounce initial_qpos", 0);
    testing::expect_array_gradient(rollout, b.model.initial_qvel, "bounce initial_qvel", 0);
    testing::expect_array_gradient(rollout, b.model.restitution, "bounce restitution", 0);
  }
  return {l, b.model.initial_qpos.adjoints()[0], b.model.initial_qvel.adjoints()[0]};
}

TEST(ImpulseContact, TheTimeOfImpactGradientHasTheRightSignAndTheNaiveOneTheWrongSign) {
  // Physically, starting further forward or faster leaves the ball further back after the
  // bounce: x(T) = c - 0.8 (x0 + v T - c) with c = kTouch and T = 0.5 s, so dx(T)/dx0 = -0.8
  // and dx(T)/dv = -0.8 T; the loss is d^2 with d = x(T) + 10.
  const BounceGradient toi = bounce_gradient(ContactModel::kImpulse);
  const double d = std::sqrt(toi.loss);
  EXPECT_NEAR(toi.dx, 2.0 * d * -0.8, 1e-9);
  EXPECT_NEAR(toi.dv, 2.0 * d * -0.8 * 0.5, 1e-9);
  // The naive variant bounces at the end of the step that overlaps, from where the ball got to,
  // so within a pattern the end point moves with the start: the wrong sign.
  const BounceGradient naive = bounce_gradient(ContactModel::kNaiveImpulse);
  EXPECT_GT(naive.dx, 0.0);
  EXPECT_GT(naive.dv, 0.0);
  EXPECT_LT(toi.dx, 0.0);
  EXPECT_LT(toi.dv, 0.0);
  // The naive loss itself still falls as the start moves forward over several patterns: only
  // its gradient misleads.
  Bounce far = bounce(ContactModel::kNaiveImpulse);
  far.model.initial_qpos.values()[0] = 0.05;
  RigidWorlds system(far.model);
  RigidLoss loss(far.model, far.loss);
  EXPECT_LT(Rollout(system, loss, far.model.steps).loss(), naive.loss);
}

// Checks the gradient of a two-ball collision against central differences, the second ball
// coming in at vy; friction moves the loss only when the balls slip at the impact.
void expect_two_ball_gradient(double vy, bool slipping) {
  RigidModel m = oblique_pair(0.9);
  m.resize(1, 40);
  m.set_differentiable(true);
  m.initial_qvel.values()[0] = 1.0;
  m.initial_qvel.values()[3] = vy;
  // Different frictions on the two geoms (the pair takes the larger; equal ones would be a kink).
  m.geom_friction.values()[0] = 0.05;
  m.geom_friction.values()[1] = 0.02;
  RigidLossSettings loss_settings;
  loss_settings.reach_body = 2;
  loss_settings.reach_target = {{0.8, 0.3, 0.0}};
  loss_settings.qvel_target.assign(static_cast<std::size_t>(m.nv), 0.1);
  loss_settings.qvel_weight.assign(static_cast<std::size_t>(m.nv), 0.3);
  RigidWorlds system(m);
  RigidLoss loss(m, loss_settings);
  Rollout rollout(system, loss, 40);
  rollout.loss_and_gradient();
  const char* labels[] = {"initial_qpos", "initial_qvel", "body_mass", "restitution", "geom_friction"};
  Array<1>* arrays[] = {&m.initial_qpos, &m.initial_qvel, &m.body_mass, &m.restitution, &m.geom_friction};
  for (std::size_t k = 0; k < 5; ++k) {
    const double largest = testing::expect_array_gradient(rollout, *arrays[k], labels[k], 0);
    if (k < 4 || slipping) {
      EXPECT_GT(largest, 1e-6) << labels[k] << ": no effect seen";
    }
  }
}

TEST(ImpulseContact, TheGradientThroughATwoBallCollisionMatchesCentralDifferences) {
  // Slipping: friction is clipped at the cone, and mu moves the loss.
  expect_two_ball_gradient(-0.25, true);
  // Head on (the relative velocity along the line of centres): friction grips, and the
  // gradient still sees how a slight sideways motion would be stopped.
  expect_two_ball_gradient(-0.2, false);
}

}  // namespace
}  // namespace simgrad::rigid
