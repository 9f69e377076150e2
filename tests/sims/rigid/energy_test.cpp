// Closed forms and conservation laws: a compound pendulum's period, a double pendulum's energy
// under RK4, a free body's momentum and angular momentum, and the instability of rotation about
// the middle principal axis.
#include "sims/rigid/energy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "sims/rigid/kinematics.hpp"
#include "sims/rigid/step.hpp"
#include "tests/sims/rigid/mujoco_reference.hpp"

namespace simgrad::rigid {
namespace {

// A world stepped by hand, with its conserved quantities at the current state.
struct World {
  RigidModel model;
  RigidTree tree;
  RigidConstants<double> constants;
  RigidWorkspace<double> workspace;
  std::vector<double> state, next, ctrl;

  explicit World(RigidModel m) : model(std::move(m)), tree(model), constants(constants_of(model)) {
    workspace.resize(tree);
    state = model.qpos0;
    state.resize(static_cast<std::size_t>(model.nq + model.nv), 0.0);
    next = state;
    ctrl.assign(static_cast<std::size_t>(model.nu()), 0.0);
  }
  void step() {
    ASSERT_TRUE(rigid_step(model, tree, constants, state.data(), ctrl.data(), next.data(), workspace));
    state.swap(next);
  }
  // Fills the workspace's frames, inertias and velocities at the current state.
  void measure() {
    forward_kinematics(model, state.data(), workspace);
    inertias_and_axes(model, constants, workspace);
    body_velocities(model, tree, state.data() + model.nq, workspace);
  }
  double energy() {
    measure();
    return kinetic_energy(workspace) + potential_energy(model, workspace);
  }
};

World world(const char* xml, const char* name) {
  auto mj = testing::load_mujoco_text(xml, name);
  return World(testing::from_mujoco(mj->m));
}

TEST(RigidEnergy, CompoundPendulumSwingsWithItsSmallAnglePeriod) {
  // A rod of length 0.6 (capsule radius 0.01) on a hinge at one end: T = 2 pi sqrt(I / (m g d)).
  World w = world(R"(<mujoco><option timestep="0.0005" integrator="RK4"/><worldbody><body>
      <joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 -0.6" size="0.01"/>
      </body></worldbody></mujoco>)", "compound_pendulum");
  const double m = w.model.body_mass.values()[1];
  const Body& body = w.model.bodies[1];
  const double d = -body.centre.c[2];
  const double inertia = m * (body.unit_inertia(1, 1) + d * d);
  const double period = 2.0 * std::numbers::pi * std::sqrt(inertia / (m * 9.81 * d));
  w.state[0] = 0.001;  // amplitude: the finite-amplitude correction is 1 + theta^2/16 = 1 + 6e-8
  // Times of downward zero crossings, linearly interpolated.
  std::vector<double> crossings;
  double t = 0.0;
  const double dt = w.model.settings.timestep;
  while (crossings.size() < 6) {
    const double before = w.state[0];
    w.step();
    t += dt;
    if (before > 0.0 && w.state[0] <= 0.0) crossings.push_back(t - dt * w.state[0] / (w.state[0] - before));
  }
  const double measured = (crossings.back() - crossings.front()) / 5.0;
  EXPECT_NEAR(measured / period, 1.0, 1e-6) << "measured " << measured << " s, closed form " << period << " s";
}

TEST(RigidEnergy, DoublePendulumKeepsItsEnergyUnderRk4For10Seconds) {
  World w = world(R"(<mujoco><option timestep="0.001" integrator="RK4"/><worldbody>
      <body><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 -0.4" size="0.03"/>
        <body pos="0.3 0 -0.4"><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03"/></body>
      </body></worldbody></mujoco>)", "double_pendulum");
  w.state[0] = 2.0;  // far from equilibrium: the motion is chaotic
  w.state[1] = -1.0;
  const double e0 = w.energy();
  double worst = 0.0;
  for (int t = 0; t < 10000; ++t) {
    w.step();
    worst = std::max(worst, std::abs(w.energy() - e0));
  }
  const double scale = std::abs(w.energy()) + w.model.body_mass.values()[1] * 9.81;
  EXPECT_LT(worst / scale, 1e-6) << "energy drift " << worst << " J";
}

// A box tumbling in zero gravity for 5 s: its momentum and energy stay put, and its angular
// momentum drifts only as the integrator's order says. MuJoCo's RK4 (which simgrad follows bit
// for bit in spirit) adds the stages' body-frame angular velocities in the tangent space of the
// starting orientation, without the dexp correction of Runge-Kutta-Munthe-Kaas methods, so the
// rotation is second order: the drift must fall about fourfold when the step is halved.
double angular_momentum_drift(double dt, double* energy_drift, double* momentum_drift) {
  const std::string xml = "<mujoco><option timestep=\"" + std::to_string(dt) + R"(" integrator="RK4" gravity="0 0 0"/><worldbody>
      <body pos="0.3 0.1 -0.2"><freejoint/><geom type="box" size="0.3 0.2 0.1"/></body></worldbody></mujoco>)";
  World w = world(xml.c_str(), "free_box_momentum");
  const double v[6] = {0.4, -0.3, 0.2, 1.0, 2.0, -3.0};
  for (int k = 0; k < 6; ++k) w.state[7 + static_cast<std::size_t>(k)] = v[k];
  w.measure();
  const Spatial<double> p0 = momentum(w.workspace);
  const double e0 = kinetic_energy(w.workspace);
  for (int t = 0, steps = static_cast<int>(std::lround(5.0 / dt)); t < steps; ++t) w.step();
  w.measure();
  const Spatial<double> p = momentum(w.workspace);
  *energy_drift = std::abs(kinetic_energy(w.workspace) - e0) / e0;
  *momentum_drift = norm(p.bottom - p0.bottom) / norm(p0.bottom);
  return norm(p.top - p0.top) / norm(p0.top);
}

TEST(RigidEnergy, FreeBoxKeepsItsMomentumAndAngularMomentum) {
  double energy = 0.0, linear = 0.0, energy_half = 0.0, linear_half = 0.0;
  const double drift = angular_momentum_drift(1e-3, &energy, &linear);
  const double drift_half = angular_momentum_drift(5e-4, &energy_half, &linear_half);
  EXPECT_LT(linear, 1e-13);
  EXPECT_LT(drift, 1e-5);
  EXPECT_GT(drift / drift_half, 3.5) << "angular momentum drift " << drift << " at 1 ms, " << drift_half << " at 0.5 ms";
  EXPECT_LT(energy, 1e-8);
}

// Spun about its middle principal axis with a 1e-4 wobble, a box flips over (the tennis-racket
// effect); spun about its largest or smallest axis with the same wobble, it does not.
TEST(RigidEnergy, RotationAboutTheMiddleAxisIsUnstable) {
  const char* xml = R"(<mujoco><option timestep="0.001" integrator="RK4" gravity="0 0 0"/><worldbody>
      <body><freejoint/><geom type="box" size="0.3 0.2 0.1"/></body></worldbody></mujoco>)";
  // The box's local x, y, z are its smallest, middle and largest inertia axes.
  auto least_spin = [&](int axis) {
    World w = world(xml, "tennis_racket");
    for (int k = 0; k < 3; ++k) w.state[10 + static_cast<std::size_t>(k)] = k == axis ? 5.0 : 1e-4;
    double least = 5.0;
    for (int t = 0; t < 20000; ++t) {
      w.step();
      least = std::min(least, w.state[10 + static_cast<std::size_t>(axis)]);
    }
    return least;
  };
  EXPECT_GT(least_spin(0), 4.99);
  EXPECT_LT(least_spin(1), -4.9);  // the spin about the middle axis reverses
  EXPECT_GT(least_spin(2), 4.99);
}

}  // namespace
}  // namespace simgrad::rigid
