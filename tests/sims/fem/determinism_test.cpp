// FEM forward states and gradients hash to the same value for 1, 2 and 4 threads and for every
// checkpoint policy.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/fem/fem.hpp"
#include "sims/fem/mesh.hpp"
#include "sims/softbody/losses.hpp"
#include "tests/sims/state_hash.hpp"

namespace simgrad::fem {
namespace {

using simgrad::testing::Hashes;
using simgrad::testing::hash_doubles;

Hashes run(int threads, const char* policy) {
  set_thread_count(threads);
  const int steps = 8;
  // 10 x 10 x 7 cells, 4200 tetrahedra: eight blocks, so four threads each take two.
  const FemMesh<3> mesh = make_box_mesh(10, 10, 7, {{0.1, 0.1, 0.07}}, {{0.0, 0.0, 0.02}});
  std::vector<std::int32_t> regions;
  for (Index e = 0; e < mesh.element_count(); ++e) regions.push_back(e < mesh.element_count() / 2 ? 0 : 1);
  FemModel<3> m;
  m.build(mesh.positions, mesh.elements, regions, steps);
  m.set_material(5e4, 0.3, 2e-5, 1000.0);  // beta well inside the explicit limit dt < 2 / (beta w_max^2)
  m.youngs.values()[1] = 8e4;
  m.settings.dt = 2e-4;
  m.settings.material = MaterialModel::kNeoHookean;  // the cheaper law: the kernel is the same
  m.gravity.values()[2] = -9.8;
  for (Index i = 0; i < m.node_count; ++i) m.initial_velocity.values()[3 * i + 2] = -0.5 + 0.1 * (i % 7);
  ContactPlane<3> ground;
  ground.normal = {{0.0, 0.0, 1.0}};
  ground.friction = 0.5;
  m.planes.push_back(ground);
  m.settings.penalty = {50.0, 500.0, 0.05};  // soft: the nodes weigh 0.1 to 1 g
  for (auto* a : {&m.youngs, &m.poisson, &m.damping}) a->set_differentiable(true);
  m.initial_velocity.set_differentiable(true);
  Fem<3> system(m);
  std::vector<std::int32_t> markers;
  std::vector<double> reference;
  for (Index i = 0; i < m.node_count; i += 7) markers.push_back(static_cast<std::int32_t>(i));
  for (int f = 0; f < 3; ++f)
    for (std::int32_t i : markers)
      for (int c = 0; c < 3; ++c) reference.push_back(m.initial_position.values()[3 * i + c] + 0.001 * c);
  softbody::TrajectoryMatchLoss<3> loss(m.node_count, markers, 4, reference);
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(policy);
  Rollout rollout(system, loss, steps, options);
  rollout.loss_and_gradient();
  std::uint64_t g = hash_doubles(m.youngs.adjoints());
  for (auto* a : {&m.poisson, &m.damping}) g = hash_doubles(a->adjoints(), g);
  g = hash_doubles(m.initial_velocity.adjoints(), g);
  set_thread_count(0);
  EXPECT_GE(m.element_count(), 8 * kBlockSize);
  return {hash_doubles(rollout.final_state()), g};
}

TEST(FemDeterminism, SameHashesForEveryThreadCountAndCheckpointPolicy) {
  const Hashes reference = run(1, "all");
  for (int threads : {1, 2, 4})
    for (const char* policy : {"all", "every:3", "binomial:2"})
      EXPECT_EQ(run(threads, policy), reference) << threads << " threads, " << policy;
}

}  // namespace
}  // namespace simgrad::fem
