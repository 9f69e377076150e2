#include "sims/fem/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace simgrad::fem {

namespace {

// The rest edge matrix Dm of element e (columns x_i - x_0).
template <int D>
Mat<double, D> rest_edges(std::span<const double> x, const std::vector<std::int32_t>& nodes, Index e) {
  Mat<double, D> m;
  const Index base = e * (D + 1);
  for (int i = 0; i < D; ++i)
    for (int c = 0; c < D; ++c) m.a[c][i] = x[nodes[base + i + 1] * D + c] - x[nodes[base] * D + c];
  return m;
}

}  // namespace

template <int D>
void FemModel<D>::build(std::span<const double> positions, std::vector<std::int32_t> element_nodes,
                        std::vector<std::int32_t> regions, int steps) {
  if (positions.size() % D != 0 || element_nodes.size() % (D + 1) != 0)
    throw std::invalid_argument("fem: positions must be nodes x D values, elements (D + 1) node indices each");
  node_count = static_cast<Index>(positions.size()) / D;
  settings.steps = steps;
  const Index n_elements = static_cast<Index>(element_nodes.size()) / (D + 1);
  for (const std::int32_t n : element_nodes)
    if (n < 0 || n >= node_count)
      throw std::invalid_argument("fem: element node index " + std::to_string(n) + " out of range [0, " +
                                  std::to_string(node_count) + ")");
  if (regions.empty()) regions.assign(static_cast<std::size_t>(n_elements), 0);
  if (static_cast<Index>(regions.size()) != n_elements)
    throw std::invalid_argument("fem: one region per element expected");
  region_count = 0;
  for (const std::int32_t r : regions) {
    if (r < 0) throw std::invalid_argument("fem: negative region index");
    region_count = std::max(region_count, r + 1);
  }

  rest_inverse.resize(n_elements, false);
  rest_volume.resize(n_elements, false);
  double unit_volume = 1.0;  // of the reference simplex: 1/2 in 2D, 1/6 in 3D
  for (int k = 2; k <= D; ++k) unit_volume /= k;
  for (Index e = 0; e < n_elements; ++e) {
    Mat<double, D> dm = rest_edges<D>(positions, element_nodes, e);
    double det = determinant(dm);
    if (det < 0.0) {
      std::swap(element_nodes[e * (D + 1) + 1], element_nodes[e * (D + 1) + 2]);
      dm = rest_edges<D>(positions, element_nodes, e);
      det = determinant(dm);
    }
    if (!(det > 0.0)) throw std::invalid_argument("fem: element " + std::to_string(e) + " is degenerate");
    const Mat<double, D> inv_t = (1.0 / det) * cofactor(dm);  // Dm^-T
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) rest_inverse.values()[e * D * D + i * D + j] = inv_t.a[j][i];
    rest_volume.values()[e] = det * unit_volume;
  }
  elements = Incidence(D + 1, std::move(element_nodes), node_count);
  element_regions = Incidence(1, std::move(regions), region_count);

  pinned.assign(static_cast<std::size_t>(node_count), 0);
  inverse_mass.resize(node_count, false);
  youngs.resize(region_count, false);
  poisson.resize(region_count, false);
  damping.resize(region_count, false);
  density.assign(static_cast<std::size_t>(region_count), 1000.0);
  gravity.resize(1, false);
  mass_damping.resize(1, false);
  initial_position.resize(node_count, false);
  initial_velocity.resize(node_count, false);
  std::copy(positions.begin(), positions.end(), initial_position.values().begin());
  set_material(1e5, 0.3, 0.0, 1000.0);
}

template <int D>
void FemModel<D>::pin(Index node) {
  if (node < 0 || node >= node_count) throw std::out_of_range("fem: pinned node out of range");
  pinned[static_cast<std::size_t>(node)] = 1;
  inverse_mass.values()[node] = 0.0;
}

template <int D>
void FemModel<D>::update_masses() {
  std::vector<double> mass(static_cast<std::size_t>(node_count), 0.0);
  for (Index e = 0; e < element_count(); ++e) {
    const double share = density[element_regions.node(e, 0)] * rest_volume.values()[e] / (D + 1);
    for (int s = 0; s < D + 1; ++s) mass[elements.node(e, s)] += share;
  }
  for (Index n = 0; n < node_count; ++n)
    inverse_mass.values()[n] = pinned[n] || mass[n] == 0.0 ? 0.0 : 1.0 / mass[n];
}

template <int D>
void FemModel<D>::set_material(double youngs_modulus, double poisson_ratio, double stiffness_damping,
                               double mass_density) {
  std::fill(youngs.values().begin(), youngs.values().end(), youngs_modulus);
  std::fill(poisson.values().begin(), poisson.values().end(), poisson_ratio);
  std::fill(damping.values().begin(), damping.values().end(), stiffness_damping);
  std::fill(density.begin(), density.end(), mass_density);
  update_masses();
}

template <int D>
double FemModel<D>::total_mass() const {
  double m = 0.0;
  for (Index e = 0; e < element_count(); ++e) m += density[element_regions.node(e, 0)] * rest_volume.values()[e];
  return m;
}

template <int D>
FemModel<D> FemModel<D>::hard_twin() const {
  FemModel hard = *this;
  hard.settings.penalty = settings.penalty.hard_twin();
  return hard;
}

template struct FemModel<2>;
template struct FemModel<3>;

}  // namespace simgrad::fem
