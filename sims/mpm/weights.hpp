// Quadratic B-spline weights of MLS-MPM (Hu et al. 2018): a particle at x talks to the 3^D grid
// nodes base + o, o in {0, 1, 2}^D, with base = floor(x / dx - 0.5) per axis. With
// f = x / dx - base in [0.5, 1.5) the weights along one axis are
//   w_0 = (1.5 - f)^2 / 2,   w_1 = 0.75 - (f - 1)^2,   w_2 = (f - 0.5)^2 / 2,
// which sum to 1 and reproduce linear functions (sum_o w_o (o - f) = 0), so the transfers
// conserve mass and momentum. The node's offset from the particle is dpos = (o - f) dx.
#pragma once

#include <array>
#include <cmath>

#include "core/local_ad.hpp"
#include "core/vec.hpp"

namespace simgrad::mpm {

// The number of nodes a particle touches: 3^D.
template <int D>
inline constexpr int kStencil = D == 2 ? 9 : 27;

// The stencil offsets by slot (slot = o_0 + 3 o_1 + 9 o_2): the slots in lexicographic order.
template <int D>
inline constexpr std::array<Vec<int, D>, kStencil<D>> kStencilOffsets = [] {
  std::array<Vec<int, D>, kStencil<D>> table{};
  for (int s = 0; s < kStencil<D>; ++s)
    for (int d = 0, rest = s; d < D; ++d, rest /= 3) table[static_cast<std::size_t>(s)].c[d] = rest % 3;
  return table;
}();

// The stencil offset of slot s.
template <int D>
const Vec<int, D>& stencil_offset(int s) {
  return kStencilOffsets<D>[static_cast<std::size_t>(s)];
}

// Calls fn(o) for every stencil offset, in slot order, as loops of constant bounds that the
// compiler unrolls: each offset is then a constant, and the weights it picks stay in registers
// (a loop over a table of offsets indexed the weights through memory, at twice the cost).
template <int D, class Fn>
[[gnu::always_inline]] inline void for_stencil(const Fn& fn) {
  if constexpr (D == 2) {
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) fn(Vec<int, 2>{{i, j}});
  } else {
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) fn(Vec<int, 3>{{i, j, k}});
  }
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

// The weights' derivatives along one axis with respect to f: -(1.5 - f), -2 (f - 1), f - 0.5.
inline void spline_slopes(double f, double out[3]) {
  out[0] = -(1.5 - f);
  out[1] = -2.0 * (f - 1.0);
  out[2] = f - 0.5;
}

// The gradient of the weight of the node at offset o with respect to the particle's position.
template <int D>
Vec<double, D> weight_gradient(const SplineWeights<double, D>& w, const Vec<int, D>& o, double inv_dx) {
  Vec<double, D> g;
  for (int d = 0; d < D; ++d) {
    double slope[3];
    spline_slopes(w.f[d], slope);
    double r = slope[o[d]] * inv_dx;
    for (int e = 0; e < D; ++e)
      if (e != d) r *= w.w[e][o[e]];
    g[d] = r;
  }
  return g;
}

// The base cell of a particle position along one axis (its value only: the cell is a choice). A
// position far outside any grid, or not a number, gives a cell no grid has rather than
// overflowing the conversion (a blown-up run is then caught as a particle leaving the grid).
inline int base_cell(double x, double inv_dx) {
  const double cell = std::floor(x * inv_dx - 0.5);
  if (!(std::abs(cell) < 1e9)) return cell > 0.0 ? 1000000000 : -1000000000;
  return static_cast<int>(cell);
}

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
