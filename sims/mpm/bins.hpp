// Particles binned by their base cell, so that the particle-to-grid scatter becomes a gather per
// grid node: node i sums the particles whose base cell is i - o for o in {0, 1, 2}^D, offsets in
// slot order and each cell's particles in ascending index, so every node receives its
// contributions in one fixed order whatever the number of threads, and no floating-point atomic
// is needed. The bins are a counting sort by cell (stable, serial), rebuilt every step from the
// positions; they also keep each particle's spline weights for the gathers, and the box of nodes
// the particles reach, so that the gathers skip the empty rest of the grid.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sims/mpm/weights.hpp"

namespace simgrad::mpm {

template <int D>
class ParticleBins {
 public:
  // Sizes the bins for a grid and a particle count (the only allocation).
  void resize(const Vec<int, D>& nodes, Index particles);
  // Bins the particles at positions x (particles x D); returns the first particle whose stencil
  // leaves the grid, or -1.
  Index build(const double* x, double inv_dx);
  // Calls fn(p, o) for every particle p whose stencil holds node `node`, o the node's offset
  // from the particle's base cell, in the fixed order.
  template <class Fn>
  void for_each_particle(Index node, const Fn& fn) const {
    Vec<int, D> at;
    Index rest = node;
    for (int d = 0; d < D; ++d) {
      at[d] = static_cast<int>(rest % nodes_[d]);
      rest /= nodes_[d];
    }
    for_stencil<D>([&](const Vec<int, D>& o) __attribute__((always_inline)) {
      Index cell = 0;
      bool valid = true;
      for (int d = D - 1; d >= 0; --d) {
        const int b = at[d] - o[d];
        valid = valid && b >= 0 && b <= nodes_[d] - 3;
        cell = cell * nodes_[d] + b;
      }
      if (!valid) return;
      for (std::int32_t k = start_[cell]; k < start_[cell + 1]; ++k) fn(static_cast<Index>(order_[k]), o);
    });
  }
  // The nodes any particle's stencil reaches lie in the box [lo, hi) (per axis, from the last
  // build): the gathers visit only its `box_size()` nodes, the k-th of which is box_node(k).
  Index box_size() const {
    Index n = 1;
    for (int d = 0; d < D; ++d) n *= std::max(0, hi_[d] - lo_[d]);
    return n;
  }
  Index box_node(Index k) const {
    Vec<int, D> at;
    for (int d = 0; d < D; ++d) {
      const int extent = hi_[d] - lo_[d];
      at[d] = lo_[d] + static_cast<int>(k % extent);
      k /= extent;
    }
    return node_index(at);
  }
  // Particle p's spline weights from the last build.
  const SplineWeights<double, D>& weights(Index p) const { return weights_[static_cast<std::size_t>(p)]; }
  // The linear index of a node.
  Index node_index(const Vec<int, D>& at) const {
    Index n = 0;
    for (int d = D - 1; d >= 0; --d) n = n * nodes_[d] + at[d];
    return n;
  }

 private:
  Vec<int, D> nodes_{};
  std::vector<std::int32_t> start_;  // per cell, plus one: where its particles start in order_
  std::vector<std::int32_t> order_;  // particles sorted by cell, ascending within a cell
  std::vector<std::int32_t> cell_;   // per particle
  std::vector<SplineWeights<double, D>> weights_;
  Vec<int, D> lo_{}, hi_{};
};

extern template class ParticleBins<2>;
extern template class ParticleBins<3>;

}  // namespace simgrad::mpm
