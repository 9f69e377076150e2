// Gradients of whole rigid rollouts (controls, masses, damping, armature, springs, actuator
// constants, initial state) against central differences, and bit-for-bit determinism across
// thread counts and checkpoint policies.
#include "sims/rigid/rigid_worlds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/rigid/losses.hpp"
#include "tests/sims/rigid/mujoco_reference.hpp"
#include "tests/sims/rigid/rollout_gradient.hpp"
#include "tests/sims/rigid/test_models.hpp"
#include "tests/sims/state_hash.hpp"

namespace simgrad::rigid {
namespace {

// A model with `worlds` worlds over `steps` steps from random states, random controls, every
// tunable differentiable.
RigidModel prepared(testing::MujocoModel& mj, int worlds, int steps, unsigned seed) {
  RigidModel m = testing::from_mujoco(mj.m);
  m.resize(worlds, steps);
  m.set_differentiable(true);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int w = 0; w < worlds; ++w) {
    const std::vector<double> s = testing::random_state(m, rng, 0.5);
    std::copy_n(s.begin(), m.nq, m.initial_qpos.values().begin() + static_cast<std::ptrdiff_t>(w) * m.nq);
    std::copy_n(s.begin() + m.nq, m.nv, m.initial_qvel.values().begin() + static_cast<std::ptrdiff_t>(w) * m.nv);
  }
  for (double& x : m.controls.values()) x = 0.5 * u(rng);
  return m;
}

// Every term of the loss at once: the last body's reach, a pose target, progress, effort.
RigidLossSettings all_terms(const RigidModel& m) {
  RigidLossSettings s;
  s.reach_body = static_cast<int>(m.bodies.size()) - 1;
  s.reach_point = {{0.05, -0.02, 0.1}};
  s.reach_target = {{0.3, 0.1, 0.5}};
  s.qpos_target.assign(static_cast<std::size_t>(m.nq), 0.1);
  s.qpos_weight.assign(static_cast<std::size_t>(m.nq), 0.5);
  s.qvel_target.assign(static_cast<std::size_t>(m.nv), -0.2);
  s.qvel_weight.assign(static_cast<std::size_t>(m.nv), 0.1);
  s.progress_body = 1;
  s.progress_direction = {{0.6, 0.8, 0.0}};
  s.effort_weight = 0.01;
  return s;
}

// Checks the rollout gradient with respect to every tunable array against central differences,
// along random directions per array. Every array must move the loss, or the check proves
// nothing, but those named `inert` and the contact constants of a model without contact.
void expect_rollout_gradient(RigidModel& m, int steps, const char* name, const std::vector<std::string>& inert = {}) {
  RigidWorlds system(m);
  RigidLoss loss(m, all_terms(m));
  Rollout rollout(system, loss, steps);
  rollout.loss_and_gradient();
  const char* labels[] = {"body_mass", "dof_damping", "dof_armature", "joint_stiffness", "actuator_gear", "actuator_gain",
                          "geom_friction", "contact_stiffness", "contact_damping", "restitution", "spring_stiffness",
                          "initial_qpos", "initial_qvel", "controls"};
  static_assert(std::size(labels) == std::tuple_size_v<decltype(m.tunable_arrays())>);
  const auto arrays = m.tunable_arrays();
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    if (arrays[k]->size() == 0) continue;
    const double largest = testing::expect_array_gradient(rollout, *arrays[k], std::string(name) + " " + labels[k]);
    // Restitution acts only on impulse contact; these models use penalty contact.
    const bool contact = std::string(labels[k]).find("friction") != std::string::npos || std::string(labels[k]).find("contact") == 0;
    const bool impulse_only = std::string(labels[k]) == "restitution" && m.settings.contact.model == ContactModel::kPenalty;
    const bool moves = (!contact || !m.contact_pairs.empty()) && !impulse_only && std::find(inert.begin(), inert.end(), labels[k]) == inert.end();
    if (moves) {
      EXPECT_GT(largest, 1e-7) << name << " " << labels[k] << ": the check saw no effect";
    }
  }
}

TEST(RigidWorlds, GradientOfTheDoublePendulumOnItsCart) {
  auto mj = testing::load_mujoco(testing::mjcf_dir() / "inverted_double_pendulum.xml");
  RigidModel m = prepared(*mj, 2, 40, 1);
  // Motors have no gain to tune.
  expect_rollout_gradient(m, 40, "double pendulum", {"actuator_gain"});
}

TEST(RigidWorlds, GradientOfAChainWithRk4) {
  auto mj = testing::load_mujoco_text(testing::chain_xml("RK4"), "chain_rk4_gradient");
  RigidModel m = prepared(*mj, 1, 30, 2);
  expect_rollout_gradient(m, 30, "chain RK4", {"actuator_gain"});
}

TEST(RigidWorlds, GradientOfATumblingFreeBox) {
  auto mj = testing::load_mujoco_text(testing::kFreeBoxXml, "free_box_gradient");
  RigidModel m = prepared(*mj, 1, 50, 3);
  // With no force on it, a free body's motion does not depend on its mass (only on its inertia's
  // ratios, which the mass scales together); springs act on hinges and slides only.
  expect_rollout_gradient(m, 50, "free box", {"body_mass", "joint_stiffness"});
}

TEST(RigidWorlds, GradientOfABallPendulumWithServos) {
  auto mj = testing::load_mujoco_text(testing::kBallPendulumXml, "ball_pendulum_gradient");
  RigidModel m = prepared(*mj, 1, 40, 4);
  expect_rollout_gradient(m, 40, "ball pendulum");
}

TEST(RigidWorlds, GradientOfTheSwimmerThroughItsFluid) {
  auto mj = testing::load_mujoco(testing::mjcf_dir() / "swimmer.xml");
  RigidModel m = prepared(*mj, 1, 30, 7);
  expect_rollout_gradient(m, 30, "swimmer", {"actuator_gain"});
}

TEST(RigidWorlds, GradientOfTheAntInTheAir) {
  auto mj = testing::load_mujoco(testing::mjcf_dir() / "ant.xml");
  RigidModel m = prepared(*mj, 1, 20, 5);
  expect_rollout_gradient(m, 20, "ant", {"actuator_gain"});
}

TEST(RigidWorlds, GradientOfASineBankDrivingTheSwimmer) {
  // The controller's amplitude, phase and bias through the actuators, the swimmer's fluid and
  // the effort charged on its signals.
  auto mj = testing::load_mujoco(testing::mjcf_dir() / "swimmer.xml");
  RigidModel m = prepared(*mj, 2, 40, 8);
  control::ControllerLayout layout;
  layout.creatures = m.worlds;
  layout.dt = m.settings.timestep;
  layout.strength.assign(static_cast<std::size_t>(m.nu()), 1.0);
  control::SineBank bank(layout);
  RigidWorlds system(m);
  system.set_controller(&bank);
  RigidLoss loss(m, all_terms(m));
  loss.set_controller(&bank);
  Rollout rollout(system, loss, 40);
  rollout.loss_and_gradient();
  for (auto& [name, array] : bank.parameters()) EXPECT_GT(testing::expect_array_gradient(rollout, *array, name), 1e-7) << name;
}

// Hashes of the final state and the gradient of a batch of 1,100 double pendulums (more than
// two blocks of worlds, so several threads share the work).
std::vector<std::uint64_t> determinism_run(int threads, const char* policy) {
  auto mj = testing::load_mujoco(testing::mjcf_dir() / "inverted_double_pendulum.xml");
  RigidModel m = prepared(*mj, 1100, 12, 6);
  set_thread_count(threads);
  RigidWorlds system(m);
  RigidLoss loss(m, all_terms(m));
  Rollout rollout(system, loss, 12, {.checkpoint = CheckpointPolicy::parse(policy)});
  const double l = rollout.loss_and_gradient();
  set_thread_count(0);
  std::vector<std::uint64_t> hashes{simgrad::testing::hash_doubles(std::span<const double>(&l, 1)), simgrad::testing::hash_doubles(rollout.final_state())};
  for (Array<1>* a : m.tunable_arrays()) hashes.push_back(simgrad::testing::hash_doubles(a->adjoints()));
  return hashes;
}

TEST(RigidWorlds, SameBitsForEveryThreadCountAndCheckpointPolicy) {
  const auto reference = determinism_run(1, "all");
  for (int threads : {1, 2, 4})
    for (const char* policy : {"all", "every:5", "binomial:3"})
      EXPECT_EQ(determinism_run(threads, policy), reference) << threads << " threads, " << policy;
}

}  // namespace
}  // namespace simgrad::rigid
