// FEM gradients against central finite differences: the element kernel for each material, in
// 2D and 3D, with and without Rayleigh damping (and its device form through slot entries against
// the Kernel, bit for bit); the material expansion; and whole rollouts with gravity, pinned nodes
// and penalty ground contact with friction.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rng.hpp"
#include "core/rollout.hpp"
#include "sims/fem/fem.hpp"
#include "sims/fem/mesh.hpp"
#include "sims/softbody/losses.hpp"
#include "tests/core/slot_entries_check.hpp"

namespace simgrad::fem {
namespace {

// A deterministic pseudo-random number in [-1, 1) for entry i of stream k.
double noise(std::uint64_t k, std::uint64_t i) {
  return 2.0 * uniform01(7, k, i) - 1.0;
}

template <int D>
FemMesh<D> small_mesh() {
  if constexpr (D == 2) return make_rectangle_mesh(2, 1, {{0.2, 0.1}}, {{0.0, 0.0}});
  else return make_box_mesh(1, 1, 1, {{0.1, 0.1, 0.1}}, {{0.0, 0.0, 0.0}});
}

// sum_n w_n . f_n for the elastic forces f of a deformed, moving small mesh, as a function of
// the positions, velocities and element parameters; checked against finite differences.
template <int D>
void check_element_kernel(MaterialModel material, bool damped) {
  const FemMesh<D> mesh = small_mesh<D>();
  FemModel<D> model;
  model.build(mesh.positions, mesh.elements, mesh.regions, 1);
  const Index nodes = model.node_count, elements = model.element_count();
  Array<D> x(nodes, true), v(nodes, true), force(nodes, true);
  Array<1> mu(elements, true), lambda(elements, true), beta(elements, true);
  for (Index i = 0; i < nodes * D; ++i) {
    x.values()[i] = mesh.positions[i] * (1.0 + 0.1 * (i % D)) + 0.01 * noise(1, i);
    v.values()[i] = noise(2, i);
    force.adjoints()[i] = noise(3, i);
  }
  for (Index e = 0; e < elements; ++e) {
    mu.values()[e] = 1e3 * (1.0 + 0.2 * noise(4, e));
    lambda.values()[e] = 2e3 * (1.0 + 0.2 * noise(5, e));
    beta.values()[e] = 0.01 * (1.0 + 0.2 * noise(6, e));
  }
  ElasticForce<D> body{x.field(), v.field(), model.rest_inverse.field(), model.rest_volume.field(), mu.field(),
                       lambda.field(), beta.field(), force.field(), material, damped};
  Kernel kernel("fem_elastic_forces", &model.elements);
  kernel.forward(body);
  kernel.adjoint(body);

  std::vector<std::span<double>> values = {x.values(), v.values(), mu.values(), lambda.values(), beta.values()};
  std::vector<std::span<double>> adjoints = {x.adjoints(), v.adjoints(), mu.adjoints(), lambda.adjoints(),
                                             beta.adjoints()};
  std::vector<double> p, g;
  for (std::size_t k = 0; k < values.size(); ++k) {
    p.insert(p.end(), values[k].begin(), values[k].end());
    g.insert(g.end(), adjoints[k].begin(), adjoints[k].end());
  }
  auto f = [&](std::span<const double> q) {
    std::size_t i = 0;
    for (auto& span : values)
      for (double& a : span) a = q[i++];
    kernel.forward(body);
    double s = 0.0;
    for (Index n = 0; n < nodes * D; ++n) s += force.adjoints()[n] * force.values()[n];
    return s;
  };
  GradCheckOptions options;
  options.step = 1e-6;
  options.rtol = 1e-5;
  options.atol = 1e-7;
  const GradCheckReport report = check_gradient(f, p, g, options);
  for (const GradCheckEntry& c : report.checks)
    EXPECT_TRUE(c.ok) << c.label << ": ad " << c.ad << " fd " << c.fd;
  // The kernel's hand-written adjoint (both laws, damped or not) against the derived one, back at p.
  std::size_t restored = 0;
  for (auto& span : values)
    for (double& a : span) a = p[restored++];
  for (auto& span : adjoints) std::fill(span.begin(), span.end(), 0.0);
  kernel.derived_adjoint(body);
  std::size_t k = 0;
  for (auto& span : adjoints)
    for (double derived : span) {
      EXPECT_NEAR(g[k], derived, 1e-9 * (std::abs(derived) + 1.0)) << "entry " << k;
      ++k;
    }
  // Without damping the velocities and beta have no effect.
  if (!damped) {
    for (double a : v.adjoints()) EXPECT_EQ(a, 0.0);
  }
  // Through slot entries, the device's scatter (core/slot_entries.hpp), with the elements run
  // backwards: the Kernel's bits, forward, hand-written and derived adjoints.
  testing::expect_entries_match_kernel(body, model.elements, adjoints);
}

TEST(FemGradient, CorotatedTriangle) { check_element_kernel<2>(MaterialModel::kCorotated, false); }
TEST(FemGradient, NeoHookeanTriangle) { check_element_kernel<2>(MaterialModel::kNeoHookean, false); }
TEST(FemGradient, CorotatedTetrahedron) { check_element_kernel<3>(MaterialModel::kCorotated, false); }
TEST(FemGradient, NeoHookeanTetrahedron) { check_element_kernel<3>(MaterialModel::kNeoHookean, false); }
TEST(FemGradient, DampedCorotatedTetrahedron) { check_element_kernel<3>(MaterialModel::kCorotated, true); }
TEST(FemGradient, DampedNeoHookeanTriangle) { check_element_kernel<2>(MaterialModel::kNeoHookean, true); }
TEST(FemGradient, DampedCorotatedTriangle) { check_element_kernel<2>(MaterialModel::kCorotated, true); }
TEST(FemGradient, DampedNeoHookeanTetrahedron) { check_element_kernel<3>(MaterialModel::kNeoHookean, true); }

// A small body sliding on the ground with friction into a static box, hanging from a pinned corner; the loss matches marker
// nodes to a shifted pose. Tuned: E, nu, damping per region (two regions), gravity and the
// initial velocity.
template <int D>
FemModel<D> dropped_body(MaterialModel material, int steps, FemIntegrator integrator = FemIntegrator::kSymplecticEuler) {
  FemMesh<D> mesh = small_mesh<D>();
  for (Index e = 0; e < mesh.element_count(); ++e) mesh.regions.push_back(e % 2);
  FemModel<D> m;
  m.build(mesh.positions, mesh.elements, mesh.regions, steps);
  m.settings.dt = 5e-4;
  m.settings.material = material;
  m.settings.integrator = integrator;
  m.mass_damping.values()[0] = 0.5;
  m.settings.penalty = {2e4, 2000.0, 0.05};
  m.youngs.values()[0] = 2e4;
  m.youngs.values()[1] = 3e4;
  m.poisson.values()[0] = 0.3;
  m.poisson.values()[1] = 0.25;
  m.damping.values()[0] = 0.01;
  m.damping.values()[1] = 0.02;
  m.pin(m.node_count - 1);  // a top corner
  m.gravity.values()[D - 1] = -9.8;
  for (Index i = 0; i < m.node_count; ++i) m.initial_velocity.values()[i * D] = 0.2 + 0.1 * noise(8, i);
  ContactPlane<D> ground;
  ground.normal = Vec<double, D>::unit(D - 1);
  ground.friction = 0.4;
  m.planes.push_back(ground);
  // A static box the body's far side starts 5 mm into (its nearest face is the one facing x = 0).
  ContactBox<D> box;
  const double far = D == 2 ? 0.2 : 0.1;
  for (int c = 0; c < D; ++c) {
    box.lo[c] = c == 0 ? far - 0.005 : -0.1;
    box.hi[c] = c == D - 1 ? 0.05 : 0.4;
  }
  box.friction = 0.3;
  m.boxes.push_back(box);
  for (auto* a : {&m.youngs, &m.poisson, &m.damping, &m.mass_damping}) a->set_differentiable(true);
  m.gravity.set_differentiable(true);
  m.initial_velocity.set_differentiable(true);
  return m;
}

template <int D>
void check_rollout(MaterialModel material, FemIntegrator integrator = FemIntegrator::kSymplecticEuler,
                   const char* policy = "all", int steps = 40) {
  const int stride = 10;
  FemModel<D> model = dropped_body<D>(material, steps, integrator);
  Fem<D> system(model);
  std::vector<std::int32_t> markers;
  std::vector<double> reference;
  for (Index i = 0; i < model.node_count; ++i) markers.push_back(static_cast<std::int32_t>(i));
  for (int frame = 0; frame <= steps / stride; ++frame)
    for (Index i = 0; i < model.node_count * D; ++i)
      reference.push_back(model.initial_position.values()[i] + 0.001 * frame * (i % D == 0));
  softbody::TrajectoryMatchLoss<D> loss(model.node_count, markers, stride, reference);
  RolloutOptions rollout_options;
  rollout_options.checkpoint = CheckpointPolicy::parse(policy);
  Rollout rollout(system, loss, steps, rollout_options);
  rollout.loss_and_gradient();
  // The ground acts: without it the body ends elsewhere (the box acts likewise, checked below).
  const std::vector<double> with_ground(rollout.final_state().begin(), rollout.final_state().end());
  const auto planes = model.planes;
  model.planes.clear();
  rollout.loss();
  double moved = 0.0;
  for (std::size_t i = 0; i < with_ground.size() / 2; ++i) moved = std::max(moved, std::abs(with_ground[i] - rollout.final_state()[i]));
  EXPECT_GT(moved, 1e-4);
  model.planes = planes;
  const auto boxes = model.boxes;
  model.boxes.clear();
  rollout.loss();
  moved = 0.0;
  for (std::size_t i = 0; i < with_ground.size() / 2; ++i) moved = std::max(moved, std::abs(with_ground[i] - rollout.final_state()[i]));
  EXPECT_GT(moved, 1e-4);
  model.boxes = boxes;

  // The implicit 3D case leaves the initial velocities to the 2D case: each finite difference is
  // a rollout of Newton solves.
  const bool velocities = !(D == 3 && integrator == FemIntegrator::kImplicitEuler);
  std::vector<std::span<double>> values = {model.youngs.values(), model.poisson.values(), model.damping.values(),
                                           model.mass_damping.values(), model.gravity.values()};
  std::vector<std::span<double>> adjoints = {model.youngs.adjoints(), model.poisson.adjoints(),
                                             model.damping.adjoints(), model.mass_damping.adjoints(),
                                             model.gravity.adjoints()};
  if (velocities) {
    values.push_back(model.initial_velocity.values());
    adjoints.push_back(model.initial_velocity.adjoints());
  }
  std::vector<double> p, g;
  std::vector<std::string> labels;
  const char* names[] = {"youngs", "poisson", "damping", "mass_damping", "gravity", "initial_velocity"};
  for (std::size_t k = 0; k < values.size(); ++k) {
    p.insert(p.end(), values[k].begin(), values[k].end());
    g.insert(g.end(), adjoints[k].begin(), adjoints[k].end());
    for (std::size_t i = 0; i < values[k].size(); ++i) labels.push_back(std::string(names[k]) + std::to_string(i));
  }
  auto f = [&](std::span<const double> q) {
    std::size_t i = 0;
    for (auto& span : values)
      for (double& a : span) a = q[i++];
    const double l = rollout.loss();
    i = 0;
    for (auto& span : values)
      for (double& a : span) a = p[i++];
    return l;
  };
  GradCheckOptions options;
  options.step = 1e-6;
  options.rtol = 1e-4;
  options.atol = 1e-12;
  const GradCheckReport report = check_gradient(f, p, g, options, labels);
  for (const GradCheckEntry& c : report.checks)
    EXPECT_TRUE(c.ok) << c.label << ": ad " << c.ad << " fd " << c.fd;
}

TEST(FemGradient, CorotatedRolloutWithContact2D) { check_rollout<2>(MaterialModel::kCorotated); }
TEST(FemGradient, NeoHookeanRolloutWithContact3D) { check_rollout<3>(MaterialModel::kNeoHookean); }
TEST(FemGradient, CorotatedRolloutWithContact3D) { check_rollout<3>(MaterialModel::kCorotated); }
// Implicit Euler: the adjoint is one transposed solve per step at the converged state; under
// binomial checkpoints the step's Newton solve is replayed instead of read from the residual.
TEST(FemGradient, ImplicitEulerRolloutWithContact2D) {
  check_rollout<2>(MaterialModel::kCorotated, FemIntegrator::kImplicitEuler);
}
TEST(FemGradient, ImplicitEulerRolloutWithContact3DReplayed) {
  check_rollout<3>(MaterialModel::kNeoHookean, FemIntegrator::kImplicitEuler, "binomial:3", 20);
}

}  // namespace
}  // namespace simgrad::fem
