// Forward states and gradients hash to the same value for 1, 2 and 4 threads and for every
// checkpoint policy.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "tests/sims/state_hash.hpp"
#include "sims/softbody/losses.hpp"
#include "sims/softbody/mass_spring.hpp"

namespace simgrad::softbody {
namespace {

using simgrad::testing::Hashes;
using simgrad::testing::hash_doubles;

Hashes run(int threads, const char* policy) {
  set_thread_count(threads);
  const int steps = 120;
  MassSpringModel<3> m = make_jelly_block(7, 7, 7, 0.05, {{0.0, 0.0, 0.02}}, steps);
  m.settings.dt = 1e-3;
  m.settings.drag = 1.0;
  for (double& k : m.stiffness.values()) k = 2e3;
  for (double& c : m.damping.values()) c = 0.5;
  m.gravity.values()[2] = -9.8;
  ContactPlane<3> ground;
  ground.normal = {{0.0, 0.0, 1.0}};
  ground.friction = 0.5;
  m.planes.push_back(ground);
  m.settings.penalty = {5e4, 500.0, 0.05};
  m.enable_adjoints(true, true, true, false, true, true, true);
  MassSpring<3> system(m);
  std::vector<double> reference;
  for (int f = 0; f < 7; ++f)
    for (Index i = 0; i < m.node_count; i += 5)
      for (int c = 0; c < 3; ++c) reference.push_back(m.initial_position.values()[3 * i + c] + 0.01 * c);
  std::vector<std::int32_t> markers;
  for (Index i = 0; i < m.node_count; i += 5) markers.push_back(static_cast<std::int32_t>(i));
  TrajectoryMatchLoss<3> loss(system, markers, 20, reference);
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(policy);
  Rollout rollout(system, loss, steps, options);
  rollout.loss_and_gradient();
  std::uint64_t g = hash_doubles(m.stiffness.adjoints());
  for (auto* a : {&m.damping, &m.rest_length}) g = hash_doubles(a->adjoints(), g);
  for (auto* a : {&m.gravity, &m.initial_position, &m.initial_velocity}) g = hash_doubles(a->adjoints(), g);
  set_thread_count(0);
  EXPECT_GT(m.spring_count(), 4 * kBlockSize);  // several blocks run in parallel
  return {hash_doubles(rollout.final_state()), g};
}

TEST(Determinism, SameHashesForEveryThreadCountAndCheckpointPolicy) {
  const Hashes reference = run(1, "all");
  for (int threads : {1, 2, 4})
    for (const char* policy : {"all", "every:16", "binomial:6"})
      EXPECT_EQ(run(threads, policy), reference) << threads << " threads, " << policy;
}

}  // namespace
}  // namespace simgrad::softbody
