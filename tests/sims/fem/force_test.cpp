// The FEM element kernel through slot entries, the device's scatter (core/slot_entries.hpp):
// forward, hand-written adjoint and derived adjoint give a Kernel's bits with the elements run
// backwards, for each material, damped or not, in 2D and 3D.
#include "sims/fem/force.hpp"

#include <gtest/gtest.h>

#include "core/rng.hpp"
#include "sims/fem/mesh.hpp"
#include "sims/fem/model.hpp"
#include "tests/core/slot_entries_check.hpp"

namespace simgrad::fem {
namespace {

double noise(std::uint64_t k, std::uint64_t i) { return 2.0 * uniform01(13, k, i) - 1.0; }

template <int D>
void check_elements(MaterialModel material, bool damped) {
  const FemMesh<D> mesh = [] {
    if constexpr (D == 2) return make_rectangle_mesh(4, 3, {{0.2, 0.1}}, {{0.0, 0.0}});
    else return make_box_mesh(2, 2, 1, {{0.1, 0.1, 0.1}}, {{0.0, 0.0, 0.0}});
  }();
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
  testing::expect_entries_match_kernel(body, model.elements,
                                       {x.adjoints(), v.adjoints(), mu.adjoints(), lambda.adjoints(), beta.adjoints()});
}

TEST(ElasticForce, ThroughSlotEntriesGivesTheKernelsBitsCorotatedTriangles) {
  check_elements<2>(MaterialModel::kCorotated, false);
}
TEST(ElasticForce, ThroughSlotEntriesGivesTheKernelsBitsDampedNeoHookeanTriangles) {
  check_elements<2>(MaterialModel::kNeoHookean, true);
}
TEST(ElasticForce, ThroughSlotEntriesGivesTheKernelsBitsDampedCorotatedTetrahedra) {
  check_elements<3>(MaterialModel::kCorotated, true);
}
TEST(ElasticForce, ThroughSlotEntriesGivesTheKernelsBitsNeoHookeanTetrahedra) {
  check_elements<3>(MaterialModel::kNeoHookean, false);
}

}  // namespace
}  // namespace simgrad::fem
