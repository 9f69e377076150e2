// Gradients of whole MPM rollouts against central differences, for every material, in 2D and
// 3D; bit-for-bit determinism across thread counts and checkpoint policies.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/mpm/losses.hpp"
#include "sims/mpm/mpm.hpp"
#include "tests/sims/mpm/test_models.hpp"
#include "tests/sims/state_hash.hpp"

namespace simgrad::mpm {
namespace {

using testing::block_model;
using testing::expect_array_gradient;

// A loss with every term: the centre against a target, progress, and the smooth run-out.
template <int D>
MpmLossSettings<D> all_terms() {
  MpmLossSettings<D> s;
  s.target[0] = 0.55;
  s.target[D - 1] = 0.45;
  s.target_weight = 10.0;
  s.progress_weight = 0.5;
  s.runout_axis = 0;
  s.runout_target = 0.7;
  s.runout_weight = 3.0;
  s.runout_temperature = 0.01;
  return s;
}

// Checks the gradient of a short rollout with respect to the initial velocities and the
// material constants that `material` reads.
// Plastic materials and the liquid are dropped onto the floor (so that they yield or compress),
// with the relaxed floor and return mappings, whose gradients are smooth.
template <int D>
void check_rollout(Material material, int steps, int nodes, double half, bool actuated = false) {
  const bool dropped = material == Material::kSand || material == Material::kSnow || material == Material::kLiquid;
  const double floor = 3.0 / nodes;
  MpmModel<D> m = block_model<D>(material, nodes, half, dropped ? floor + half + 0.01 : 0.5);
  if (dropped) {
    for (Index p = 0; p < m.particle_count; ++p) m.initial_velocity.values()[p * D + D - 1] -= 2.0;
    m.settings.boundary_sharpness = 30.0;
    m.settings.plastic_sharpness = 300.0;
  }
  if (actuated) {
    for (Index p = 0; p < m.particle_count; ++p) m.actuator[static_cast<std::size_t>(p)] = static_cast<std::int32_t>(p % 2);
    m.actuator_count = 2;
    m.settings.actuation_strength = 50.0;
    m.resize_controls(steps);
    for (Index k = 0; k < m.controls.size(); ++k) m.controls.values()[k] = 0.3 * std::sin(0.7 * k);
    m.controls.set_differentiable(true);
  }
  m.initial_velocity.set_differentiable(true);
  m.initial_position.set_differentiable(true);
  std::vector<std::pair<const char*, Array<1>*>> constants = {{"density", &m.density}};
  if (material == Material::kLiquid) {
    constants.push_back({"bulk_modulus", &m.bulk_modulus});
  } else {
    constants.push_back({"youngs_modulus", &m.youngs});
    constants.push_back({"poisson_ratio", &m.poisson});
  }
  if (material == Material::kSand) constants.push_back({"friction_angle", &m.friction_angle});
  if (material == Material::kSnow) constants.push_back({"hardening", &m.hardening});
  for (auto& [name, a] : constants) a->set_differentiable(true);
  Mpm<D> system(m);
  MpmLoss<D> loss(m.particle_count, all_terms<D>());
  Rollout rollout(system, loss, steps);
  rollout.loss_and_gradient();
  EXPECT_GT(expect_array_gradient(rollout, m.initial_velocity, "initial_velocity"), 1e-8);
  EXPECT_GT(expect_array_gradient(rollout, m.initial_position, "initial_position"), 1e-8);
  for (auto& [name, a] : constants) EXPECT_GT(expect_array_gradient(rollout, *a, name), 1e-10) << name;
  if (actuated) {
    EXPECT_GT(expect_array_gradient(rollout, m.controls, "controls"), 1e-10);
  }
}

TEST(MpmRollout, CorotatedGradient2D) { check_rollout<2>(Material::kCorotated, 12, 24, 0.1, true); }
TEST(MpmRollout, NeoHookeanGradient2D) { check_rollout<2>(Material::kNeoHookean, 12, 24, 0.1); }
TEST(MpmRollout, SandGradient2D) { check_rollout<2>(Material::kSand, 12, 24, 0.1); }
TEST(MpmRollout, SnowGradient2D) { check_rollout<2>(Material::kSnow, 12, 24, 0.1); }
TEST(MpmRollout, LiquidGradient2D) { check_rollout<2>(Material::kLiquid, 12, 24, 0.1); }
TEST(MpmRollout, CorotatedGradient3D) { check_rollout<3>(Material::kCorotated, 6, 16, 0.08, true); }
TEST(MpmRollout, SandGradient3D) { check_rollout<3>(Material::kSand, 6, 16, 0.08); }

// Final state and gradient hashes of a block large enough that every kernel splits over threads.
simgrad::testing::Hashes run_hashes(int threads, const CheckpointPolicy& policy) {
  set_thread_count(threads);
  MpmModel<2> m = block_model<2>(Material::kCorotated, 72, 0.24);
  m.initial_velocity.set_differentiable(true);
  m.youngs.set_differentiable(true);
  Mpm<2> system(m);
  MpmLoss<2> loss(m.particle_count, all_terms<2>());
  Rollout rollout(system, loss, 4, {.checkpoint = policy});
  rollout.loss_and_gradient();
  std::vector<double> g(m.initial_velocity.adjoints().begin(), m.initial_velocity.adjoints().end());
  g.insert(g.end(), m.youngs.adjoints().begin(), m.youngs.adjoints().end());
  set_thread_count(0);
  return {simgrad::testing::hash_doubles(rollout.final_state()), simgrad::testing::hash_doubles(g)};
}

TEST(MpmRollout, SameBitsForAnyThreadCountAndCheckpointPolicy) {
  const simgrad::testing::Hashes reference = run_hashes(1, CheckpointPolicy::parse("all"));
  for (int threads : {2, 4}) EXPECT_EQ(run_hashes(threads, CheckpointPolicy::parse("all")), reference) << threads << " threads";
  EXPECT_EQ(run_hashes(2, CheckpointPolicy::parse("every:2")), reference);
  EXPECT_EQ(run_hashes(4, CheckpointPolicy::parse("binomial:2")), reference);
}

}  // namespace
}  // namespace simgrad::mpm
