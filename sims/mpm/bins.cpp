#include "sims/mpm/bins.hpp"

#include <algorithm>

#include "core/parallel.hpp"

namespace simgrad::mpm {

template <int D>
void ParticleBins<D>::resize(const Vec<int, D>& nodes, Index particles) {
  nodes_ = nodes;
  Index cells = 1;
  for (int d = 0; d < D; ++d) cells *= nodes[d];
  start_.assign(static_cast<std::size_t>(cells + 1), 0);
  order_.assign(static_cast<std::size_t>(particles), 0);
  cell_.assign(static_cast<std::size_t>(particles), 0);
  weights_.resize(static_cast<std::size_t>(particles));
}

template <int D>
Index ParticleBins<D>::build(const double* x, double inv_dx) {
  const Index n = static_cast<Index>(cell_.size());
  // Weights and cells in parallel; a particle out of the grid gets cell -1.
  parallel_for_blocks(n, [&](Index first, Index last) {
    for (Index p = first; p < last; ++p) {
      Vec<double, D> xp;
      for (int d = 0; d < D; ++d) xp[d] = x[p * D + d];
      const SplineWeights<double, D> w = spline_weights<double, D>(xp, inv_dx);
      weights_[static_cast<std::size_t>(p)] = w;
      bool valid = true;
      for (int d = 0; d < D; ++d) valid = valid && w.base[d] >= 0 && w.base[d] <= nodes_[d] - 3;
      cell_[static_cast<std::size_t>(p)] = valid ? static_cast<std::int32_t>(node_index(w.base)) : -1;
    }
  });
  std::fill(start_.begin(), start_.end(), 0);
  for (int d = 0; d < D; ++d) {
    lo_[d] = nodes_[d];
    hi_[d] = 0;
  }
  for (Index p = 0; p < n; ++p) {
    const std::int32_t c = cell_[static_cast<std::size_t>(p)];
    if (c < 0) return p;
    ++start_[static_cast<std::size_t>(c) + 1];
    const Vec<int, D>& base = weights_[static_cast<std::size_t>(p)].base;
    for (int d = 0; d < D; ++d) {
      lo_[d] = std::min(lo_[d], base[d]);
      hi_[d] = std::max(hi_[d], base[d] + 3);
    }
  }
  for (std::size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
  // Place in ascending particle order, counting up from each cell's start (then shift back).
  for (Index p = 0; p < n; ++p) order_[static_cast<std::size_t>(start_[static_cast<std::size_t>(cell_[static_cast<std::size_t>(p)])]++)] = static_cast<std::int32_t>(p);
  for (std::size_t c = start_.size() - 1; c > 0; --c) start_[c] = start_[c - 1];
  start_[0] = 0;
  return -1;
}

template class ParticleBins<2>;
template class ParticleBins<3>;

}  // namespace simgrad::mpm
