#include "sims/softbody/mass_spring.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rollout.hpp"
#include "sims/softbody/losses.hpp"

namespace simgrad::softbody {
namespace {

// The parameter arrays of a model, flattened into one vector (and back) for finite differences.
template <int D>
struct ParameterVector {
  std::vector<std::pair<std::string, std::span<double>>> values;
  std::vector<std::span<double>> adjoints;

  explicit ParameterVector(MassSpringModel<D>& m) {
    add("stiffness", m.stiffness);
    add("damping", m.damping);
    add("rest_length", m.rest_length);
    add("actuation", m.actuation);
    add("gravity", m.gravity);
    add("initial_position", m.initial_position);
    add("initial_velocity", m.initial_velocity);
  }
  template <class A>
  void add(const std::string& name, A& array) {
    if (!array.differentiable() || array.values().empty()) return;
    values.push_back({name, array.values()});
    adjoints.push_back(array.adjoints());
  }
  std::vector<double> get() const {
    std::vector<double> x;
    for (const auto& [name, v] : values) x.insert(x.end(), v.begin(), v.end());
    return x;
  }
  void set(std::span<const double> x) const {
    std::size_t k = 0;
    for (const auto& [name, v] : values)
      for (double& vi : v) vi = x[k++];
  }
  std::vector<double> gradient() const {
    std::vector<double> g;
    for (const auto& a : adjoints) g.insert(g.end(), a.begin(), a.end());
    return g;
  }
  std::vector<std::string> labels() const {
    std::vector<std::string> l;
    for (const auto& [name, v] : values)
      for (std::size_t i = 0; i < v.size(); ++i) l.push_back(name + "[" + std::to_string(i) + "]");
    return l;
  }
};

// A 3 x 2 lattice with gravity, drag, two actuators and a ground plane of the given model.
MassSpringModel<2> small_lattice(ContactModel ground_model, int steps) {
  MassSpringModel<2> m = make_lattice_2d(3, 2, 0.1, {{0.0, 0.03}}, steps);
  m.settings.dt = 2e-3;
  m.settings.drag = 0.5;
  m.settings.penalty = {2e3, 400.0, 0.05};
  for (double& k : m.stiffness.values()) k = 300.0;
  for (Index e = 0; e < m.spring_count(); ++e) m.damping.values()[e] = 0.2 + 0.05 * e;
  m.gravity.values()[1] = -9.8;
  for (Index i = 0; i < m.node_count; ++i) m.initial_velocity.values()[2 * i] = 0.3;
  std::vector<std::int32_t> actuator_of(static_cast<std::size_t>(m.spring_count()), -1);
  actuator_of[0] = 0;
  actuator_of[3] = 1;
  m.set_actuators(actuator_of, 2);
  for (int t = 0; t < steps; ++t) {
    m.actuation.values()[2 * t] = 0.2 * std::sin(0.2 * t);
    m.actuation.values()[2 * t + 1] = 0.1 * std::cos(0.1 * t);
  }
  ContactPlane<2> ground;
  ground.normal = {{0.0, 1.0}};
  ground.offset = 0.0;
  ground.friction = 0.4;
  ground.restitution = 0.3;
  ground.model = ground_model;
  m.planes.push_back(ground);
  m.enable_adjoints(true, true, true, true, true, true, true);
  return m;
}

// Reference frames: the lattice's nodes pulled towards a shifted pose.
std::vector<double> shifted_reference(const MassSpringModel<2>& m, int frames) {
  std::vector<double> ref;
  for (int f = 0; f < frames; ++f)
    for (Index i = 0; i < m.node_count; ++i) {
      ref.push_back(m.initial_position.values()[2 * i] + 0.002 * f);
      ref.push_back(m.initial_position.values()[2 * i + 1] + 0.01);
    }
  return ref;
}

void expect_rollout_gradient_matches_fd(ContactModel ground_model, bool derived_adjoints) {
  const int steps = 60;
  MassSpringModel<2> model = small_lattice(ground_model, steps);
  MassSpring<2> system(model);
  system.use_derived_adjoints(derived_adjoints);
  std::vector<std::int32_t> markers = {0, 1, 2, 3, 4, 5};
  TrajectoryMatchLoss<2> loss(system, markers, 10, shifted_reference(model, 7));
  Rollout rollout(system, loss, steps);
  rollout.loss_and_gradient();

  ParameterVector<2> params(model);
  const std::vector<double> x = params.get();
  const std::vector<double> g = params.gradient();
  auto f = [&](std::span<const double> p) {
    params.set(p);
    const double l = rollout.loss();
    params.set(x);
    return l;
  };
  GradCheckOptions options;
  options.rtol = 2e-4;
  options.atol = 1e-10;
  const auto labels = params.labels();
  const auto report = check_gradient(f, x, g, options, labels);
  int failures = 0;
  for (const auto& c : report.checks)
    if (!c.ok && ++failures < 10) ADD_FAILURE() << c.label << ": ad " << c.ad << " fd " << c.fd;
  EXPECT_EQ(failures, 0);
}

TEST(MassSpring, RolloutGradientMatchesFiniteDifferencesWithPenaltyGround) {
  expect_rollout_gradient_matches_fd(ContactModel::kPenalty, false);
}

TEST(MassSpring, RolloutGradientMatchesFiniteDifferencesWithTimeOfImpactGround) {
  expect_rollout_gradient_matches_fd(ContactModel::kTimeOfImpact, false);
}

TEST(MassSpring, DerivedAdjointsAlsoMatchFiniteDifferences) {
  expect_rollout_gradient_matches_fd(ContactModel::kPenalty, true);
  expect_rollout_gradient_matches_fd(ContactModel::kTimeOfImpact, true);
}

// The hand-written spring and integrate adjoints against the engine's derived ones, with a
// penalty ground, a time-of-impact wall and a projection wall all in contact.
TEST(MassSpring, HandWrittenAdjointsEqualDerivedAdjoints) {
  const int steps = 40;
  MassSpringModel<2> model = small_lattice(ContactModel::kPenalty, steps);
  ContactPlane<2> wall;
  wall.normal = {{-1.0, 0.0}};
  wall.offset = -0.2;
  wall.friction = 0.2;
  wall.restitution = 0.5;
  wall.model = ContactModel::kTimeOfImpact;
  model.planes.push_back(wall);
  wall.normal = {{1.0, 0.0}};
  wall.offset = 0.001;
  wall.model = ContactModel::kProjection;
  model.planes.push_back(wall);
  for (Index i = 0; i < model.node_count; ++i) model.initial_velocity.values()[2 * i] = i % 2 ? 2.0 : -0.5;
  model.inverse_mass.values()[4] = 0.0;  // one pinned node
  model.inverse_mass.set_differentiable(true);
  MassSpring<2> system(model);
  TrajectoryMatchLoss<2> loss(system, {0, 2, 5}, 5, std::vector<double>(9 * 6, 0.05));
  Rollout rollout(system, loss, steps);
  rollout.loss_and_gradient();
  ParameterVector<2> params(model);
  const auto hand = params.gradient();
  const std::vector<double> hand_mass(model.inverse_mass.adjoints().begin(), model.inverse_mass.adjoints().end());
  system.use_derived_adjoints(true);
  rollout.loss_and_gradient();
  const auto derived = params.gradient();
  for (Index i = 0; i < model.node_count; ++i)
    EXPECT_NEAR(hand_mass[i], model.inverse_mass.adjoints()[i], 1e-10 * (1.0 + std::abs(hand_mass[i])));
  ASSERT_EQ(hand.size(), derived.size());
  for (std::size_t i = 0; i < hand.size(); ++i)
    EXPECT_NEAR(hand[i], derived[i], 1e-10 * (1.0 + std::abs(derived[i]))) << params.labels()[i];
}

// One unit mass on a spring of stiffness k to a pinned node, no gravity or drag.
MassSpringModel<2> oscillator(double k, double stretch, double dt, int steps) {
  MassSpringModel<2> m;
  m.build(2, {0, 1}, steps);
  m.settings.dt = dt;
  m.inverse_mass.values()[0] = 0.0;
  m.initial_position.values()[2] = 1.0 + stretch;
  m.stiffness.values()[0] = k;
  m.rest_length.values()[0] = 1.0;
  return m;
}

TEST(MassSpringPhysics, OscillatorPeriodAndEnergyMatchClosedForm) {
  const double k = 40.0, amplitude = 0.05, dt = 1e-4;
  const double period = 2 * std::numbers::pi * std::sqrt(1.0 / k);
  const int steps = static_cast<int>(3 * period / dt);
  MassSpringModel<2> model = oscillator(k, amplitude, dt, steps);
  MassSpring<2> system(model);
  std::vector<double> s(8), next(8);
  system.initial_state(s);
  std::vector<double> crossings;  // times the extension crosses zero upwards
  const double energy0 = 0.5 * k * amplitude * amplitude;
  double worst_energy_error = 0.0;
  for (int t = 0; t < steps; ++t) {
    system.step(t, s, next, {});
    const double before = s[2] - 1.0, after = next[2] - 1.0;
    if (before < 0.0 && after >= 0.0) crossings.push_back((t + before / (before - after)) * dt);
    s = next;
    // Symplectic Euler conserves a shadow energy; the true energy stays within O(dt omega).
    const double e = 0.5 * s[6] * s[6] + 0.5 * k * (s[2] - 1.0) * (s[2] - 1.0);
    worst_energy_error = std::max(worst_energy_error, std::abs(e - energy0) / energy0);
  }
  ASSERT_GE(crossings.size(), 2u);
  const double measured = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  EXPECT_NEAR(measured, period, 1e-3 * period);
  EXPECT_LT(worst_energy_error, std::sqrt(k) * dt);
}

TEST(MassSpringPhysics, FreeFallMatchesSemiImplicitEulerClosedForm) {
  MassSpringModel<3> m;
  m.build(1, {}, 100);
  m.settings.dt = 0.01;
  m.gravity.values()[2] = -9.81;
  m.initial_position.values()[2] = 10.0;
  m.initial_velocity.values()[0] = 1.5;
  MassSpring<3> system(m);
  std::vector<double> s(6), next(6);
  system.initial_state(s);
  const int n = 100;
  for (int t = 0; t < n; ++t) {
    system.step(t, s, next, {});
    s = next;
  }
  const double dt = 0.01, T = n * dt;
  // v_n = -g n dt, x_n = x0 - g dt^2 n (n + 1) / 2: the exact semi-implicit Euler trajectory.
  EXPECT_NEAR(s[2], 10.0 - 9.81 * dt * dt * n * (n + 1) / 2, 1e-12);
  EXPECT_NEAR(s[5], -9.81 * T, 1e-12);
  EXPECT_NEAR(s[0], 1.5 * T, 1e-12);
  // And the continuous solution to first order in dt.
  EXPECT_NEAR(s[2], 10.0 - 0.5 * 9.81 * T * T, 9.81 * T * dt);
}

}  // namespace
}  // namespace simgrad::softbody
