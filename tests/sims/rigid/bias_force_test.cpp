// Inverse dynamics (recursive Newton-Euler) against forward dynamics (composite-rigid-body mass
// matrix and Cholesky solve): the forces inverse dynamics needs for the accelerations the
// forward dynamics found are the forces that were applied, and the mass matrix's columns are
// inverse dynamics at unit accelerations.
#include "sims/rigid/bias_force.hpp"

#include <gtest/gtest.h>

#include <random>

#include "sims/rigid/mjcf.hpp"
#include "sims/rigid/step.hpp"
#include "tests/sims/rigid/test_models.hpp"

namespace simgrad::rigid {
namespace {

class InverseDynamics : public ::testing::TestWithParam<const char*> {};

TEST_P(InverseDynamics, ReturnsTheForcesThatGaveTheForwardAccelerations) {
  RigidModel m = load_mjcf(testing::mjcf_dir() / (std::string(GetParam()) + ".xml"), {.ignore_visual = true});
  m.contact_pairs.clear();
  const RigidTree tree(m);
  const RigidConstants<double> c = constants_of(m);
  RigidWorkspace<double> w;
  w.resize(tree);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto nv = static_cast<std::size_t>(m.nv);
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<double> s = testing::random_state(m, rng);
    std::vector<double> ctrl(static_cast<std::size_t>(m.nu()));
    for (double& x : ctrl) x = u(rng);
    // Forward: qacc = M^-1 (applied - bias), explicit damping (no implicit term).
    ASSERT_TRUE(accelerations(m, tree, c, s.data(), s.data() + m.nq, ctrl.data(), 0.0, w));
    const std::vector<double> qacc = w.qacc, applied = w.applied;
    // Inverse: the forces for that qacc, with the armature's (a diagonal term outside the tree's
    // recursion), are the applied ones.
    inverse_dynamics(m, tree, s.data() + m.nq, qacc.data(), w);
    double scale = 1.0;
    for (std::size_t d = 0; d < nv; ++d) scale = std::max(scale, std::abs(applied[d]));
    for (std::size_t d = 0; d < nv; ++d)
      EXPECT_NEAR(w.bias[d] + c.dof_armature[d] * qacc[d], applied[d], 1e-11 * scale) << GetParam() << " dof " << d;
  }
}

TEST_P(InverseDynamics, MassMatrixColumnsAreInverseDynamicsAtUnitAccelerations) {
  RigidModel m = load_mjcf(testing::mjcf_dir() / (std::string(GetParam()) + ".xml"), {.ignore_visual = true});
  m.settings.gravity = Vec3<double>::zero();
  for (double& a : m.dof_armature.values()) a = 0.0;
  const RigidTree tree(m);
  const RigidConstants<double> c = constants_of(m);
  RigidWorkspace<double> w;
  w.resize(tree);
  std::mt19937 rng(6);
  const std::vector<double> s = testing::random_state(m, rng);
  forward_kinematics(m, s.data(), w);
  inertias_and_axes(m, c, w);
  const std::vector<double> zero(static_cast<std::size_t>(m.nv), 0.0);
  body_velocities(m, tree, zero.data(), w);
  mass_matrix(tree, c, w);
  const std::vector<double> mass = w.mass_matrix;
  for (Spatial<double>& f : w.external) f = Spatial<double>::zero();
  const auto nv = static_cast<std::size_t>(m.nv);
  for (std::size_t j = 0; j < nv; ++j) {
    std::vector<double> unit(nv, 0.0);
    unit[j] = 1.0;
    inverse_dynamics(m, tree, zero.data(), unit.data(), w);
    for (std::size_t i = 0; i < nv; ++i) EXPECT_NEAR(w.bias[i], mass[i * nv + j], 1e-12 * std::max(1.0, std::abs(mass[j * nv + j])));
  }
}

INSTANTIATE_TEST_SUITE_P(StandardModels, InverseDynamics,
                         ::testing::Values("ant", "half_cheetah", "hopper", "humanoid", "inverted_double_pendulum", "reacher",
                                           "swimmer", "walker2d"));

}  // namespace
}  // namespace simgrad::rigid
