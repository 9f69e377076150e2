// Quadratic B-spline weights of MLS-MPM (Hu et al. 2018): a particle at x talks to the 3^D grid
// nodes base + o, o in {0, 1, 2}^D, with base = floor(x / dx - 0.5) per axis. With
// f = x / dx - base in [0.5, 1.5) the weights along one axis are
//   w_0 = (1.5 - f)^2 / 2,   w_1 = 0.75 - (f - 1)^2,   w_2 = (f - 0.5)^2 / 2,
// which sum to 1 and reproduce linear functions (sum_o w_o (o - f) = 0), so the transfers
// conserve mass and momentum. The node's offset from the particle is dpos = (o - f) dx.
#pragma once

#include <cmath>

#include "core/local_ad.hpp"
#include "core/vec.hpp"

namespace simgrad::mpm {

// The number of nodes a particle touches: 3^D.
template <int D>
inline constexpr int kStencil = D == 2 ? 9 : 27;

// The stencil offset of slot s (slot = o_0 + 3 o_1 + 9 o_2): the slots in lexicographic order.
template <int D>
Vec<int, D> stencil_offset(int s) {
  Vec<int, D> o;
  for (int d = 0; d < D; ++d) {
    o[d] = s % 3;
    s /= 3;
  }
  return o;
}

// A particle's base node and its weights along each axis.
template <class S, int D>
struct SplineWeights {
  Vec<int, D> base;
  Vec<S, D> f;        // x / dx - base
  S w[D][3];

  // The weight of the node at offset o.
  S weight(const Vec<int, D>& o) const {
    S r = w[0][o[0]];
    for (int d = 1; d < D; ++d) r = r * w[d][o[d]];
    return r;
  }
  // (o - f): the node's offset from the particle in cells.
  Vec<S, D> offset(const Vec<int, D>& o) const {
    Vec<S, D> r;
    for (int d = 0; d < D; ++d) r[d] = double(o[d]) - f[d];
    return r;
  }
};

// The base cell of a particle position along one axis (its value only: the cell is a choice).
inline int base_cell(double x, double inv_dx) { return static_cast<int>(std::floor(x * inv_dx - 0.5)); }

// The weights of a particle at x.
template <class S, int D>
SplineWeights<S, D> spline_weights(const Vec<S, D>& x, double inv_dx) {
  SplineWeights<S, D> sw;
  for (int d = 0; d < D; ++d) {
    sw.base[d] = base_cell(value_of(x[d]), inv_dx);
    const S f = x[d] * inv_dx - double(sw.base[d]);
    sw.f[d] = f;
    const S a = 1.5 - f, b = f - 1.0, c = f - 0.5;
    sw.w[d][0] = 0.5 * (a * a);
    sw.w[d][1] = 0.75 - b * b;
    sw.w[d][2] = 0.5 * (c * c);
  }
  return sw;
}

}  // namespace simgrad::mpm
