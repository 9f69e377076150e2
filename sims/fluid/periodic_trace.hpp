// The fast path of semi-Lagrangian advection on grids periodic along both axes. There every
// trace starts on lattice points (the start's bilinear stencils have one, two or four nonzero
// weights) and no sample clamps, so a sample is a few gathers and multiply-adds. Two forms of
// the same arithmetic: one sample at a time (below), and four at a time in AVX2 registers
// (periodic_trace_avx2.cpp), lane by lane the same operations in the same order, so both give
// the same bits; the vector form runs where the processor has AVX2 (tests compare the two). The
// adjoint scatters what reaches the feet and midpoints, and leaves what reaches each trace's
// start to a gather through the start's fixed stencils (add_start_adjoints).
// Neither contracts multiply-adds into fused ones (the build sets -ffp-contract=off, and the
// vector kernels do not enable FMA).
#pragma once

#include <cstdint>
#include <span>

#include "core/parallel.hpp"
#include "core/band_scatter.hpp"
#include "sims/fluid/grid.hpp"
#include "sims/fluid/periodic_rows.hpp"

namespace simgrad::fluid {

// Where the samples of a lattice sit on a grid periodic along both axes: on the x-faces, on the
// y-faces or at the cell centres; kAny: any lattice on any grid (general bilinear stencils).
enum class Staggering { kAny, kU, kV, kCell };

// The velocity lattices' values that the start of a trace reads at sample (i, j) of lattice kind
// K: the sample sits on lattice points, so the bilinear stencils there have one, two or four
// nonzero weights (1, 1/2 or 1/4). Their entries, in the stencil's order, give the same bits as
// the full stencil (the others add zeros).
template <Staggering K>
struct GridPoint {
  static constexpr int kU = K == Staggering::kU ? 1 : K == Staggering::kV ? 4 : 2;
  static constexpr int kV = K == Staggering::kV ? 1 : K == Staggering::kU ? 4 : 2;
  Index u_index[kU], v_index[kV];
  double u_weight[kU], v_weight[kV];
  double vx, vy;
};

// The grid point (i, j) of lattice kind K on a periodic nx x ny grid, with the velocity there.
template <Staggering K>
inline GridPoint<K> grid_point(int nx, int ny, const double* u, const double* v, int i, int j) {
  const int im = i == 0 ? nx - 1 : i - 1, ip = i + 1 == nx ? 0 : i + 1;
  const int jm = j == 0 ? ny - 1 : j - 1, jp = j + 1 == ny ? 0 : j + 1;
  auto at = [nx](int a, int b) { return static_cast<Index>(b) * nx + a; };
  GridPoint<K> p;
  if constexpr (K == Staggering::kU) {
    p.u_index[0] = at(i, j);
    p.u_weight[0] = 1.0;
    const Index vs[4] = {at(im, j), at(i, j), at(im, jp), at(i, jp)};
    for (int m = 0; m < 4; ++m) {
      p.v_index[m] = vs[m];
      p.v_weight[m] = 0.25;
    }
  } else if constexpr (K == Staggering::kV) {
    const Index us[4] = {at(i, jm), at(ip, jm), at(i, j), at(ip, j)};
    for (int m = 0; m < 4; ++m) {
      p.u_index[m] = us[m];
      p.u_weight[m] = 0.25;
    }
    p.v_index[0] = at(i, j);
    p.v_weight[0] = 1.0;
  } else {
    p.u_index[0] = at(i, j);
    p.u_index[1] = at(ip, j);
    p.v_index[0] = at(i, j);
    p.v_index[1] = at(i, jp);
    p.u_weight[0] = p.u_weight[1] = p.v_weight[0] = p.v_weight[1] = 0.5;
  }
  p.vx = p.u_weight[0] * u[p.u_index[0]];
  for (int m = 1; m < GridPoint<K>::kU; ++m) p.vx += p.u_weight[m] * u[p.u_index[m]];
  p.vy = p.v_weight[0] * v[p.v_index[0]];
  for (int m = 1; m < GridPoint<K>::kV; ++m) p.vy += p.v_weight[m] * v[p.v_index[m]];
  return p;
}

// The bilinear stencil of a field on a lattice periodic along both axes at a point (cell units),
// with the four values it reads: stencil_at and apply's arithmetic, kept in registers (the
// adjoint's scatter writes memory between its uses, which would force reloads).
struct WrappedSample {
  Index index[4];
  double value[4];
  double fx, fy;

  WrappedSample(const Lattice& l, double x, double y, const double* f) {
    int i0, i1, j0, j1;
    bool clamped;
    locate(x - l.ox, l.cx, true, i0, i1, fx, clamped);
    locate(y - l.oy, l.cy, true, j0, j1, fy, clamped);
    index[0] = static_cast<Index>(j0) * l.cx + i0;
    index[1] = static_cast<Index>(j0) * l.cx + i1;
    index[2] = static_cast<Index>(j1) * l.cx + i0;
    index[3] = static_cast<Index>(j1) * l.cx + i1;
    for (int m = 0; m < 4; ++m) value[m] = f[index[m]];
  }
  double weight(int m) const { return (m & 1 ? fx : 1 - fx) * (m & 2 ? fy : 1 - fy); }
  double interpolated() const { return weight(0) * value[0] + weight(1) * value[1] + weight(2) * value[2] + weight(3) * value[3]; }
  // The derivatives along x and y (per cell): the differences across the square, blended.
  double along_x() const { return (1 - fy) * (value[1] - value[0]) + fy * (value[3] - value[2]); }
  double along_y() const { return (1 - fx) * (value[2] - value[0]) + fx * (value[3] - value[1]); }
  // The square's four values times an adjoint a, in the square's order: the weights factored
  // into a row's share of a first.
  void spread(double a, double out[4]) const {
    const double lower = (1 - fy) * a, upper = fy * a;
    out[0] = (1 - fx) * lower;
    out[1] = fx * lower;
    out[2] = (1 - fx) * upper;
    out[3] = fx * upper;
  }
};

// What a trace on a doubly periodic grid reads: the grid's size, the lattice traced, the
// velocity lattices and fields, and dt / h (traces run in cell units).
struct PeriodicTrace {
  int nx = 0, ny = 0;
  Lattice lattice, u_lattice, v_lattice;
  const double* u = nullptr;
  const double* v = nullptr;
  double scale = 0.0;
  bool euler = false;
};

// The semi-Lagrangian value of sample (i, j) of lattice kind K: q at the foot of its trace.
template <Staggering K>
inline double trace_sample(const PeriodicTrace& t, const double* q, int i, int j) {
  const GridPoint<K> p = grid_point<K>(t.nx, t.ny, t.u, t.v, i, j);
  double x = i + t.lattice.ox, y = j + t.lattice.oy;
  if (t.euler) {
    x -= t.scale * p.vx;
    y -= t.scale * p.vy;
  } else {
    const double xm = x - 0.5 * t.scale * p.vx, ym = y - 0.5 * t.scale * p.vy;
    x -= t.scale * WrappedSample(t.u_lattice, xm, ym, t.u).interpolated();
    y -= t.scale * WrappedSample(t.v_lattice, xm, ym, t.v).interpolated();
  }
  return WrappedSample(t.lattice, x, y, q).interpolated();
}

// Scatter targets of a trace's adjoint in a BandScatter::Band: 0 is du, 1 is dv, q_target dq.
// Adds the adjoint of trace_sample at (i, j) with output adjoint a (nonzero) to the band, all but
// the part that reaches the velocity at the trace's start: that, (start_x, start_y), goes to the
// start's fixed stencils afterwards (add_start_adjoints), as a gather.
template <Staggering K>
inline void trace_sample_adjoint(BandScatter::Band& band, const PeriodicTrace& t, const double* q, int q_target, double a,
                                 int i, int j, double& start_x, double& start_y) {
  const double scale = t.scale;
  const GridPoint<K> start = grid_point<K>(t.nx, t.ny, t.u, t.v, i, j);
  const double x = i + t.lattice.ox, y = j + t.lattice.oy;
  // Each target's values in order; du and dv are apart, so their adds may interleave freely.
  auto spread_square = [&](int target, const WrappedSample& s, double w) {
    double values[4];
    s.spread(w, values);
    band.add_square(target, s.index, values);
  };
  if (t.euler) {
    const WrappedSample foot(t.lattice, x - scale * start.vx, y - scale * start.vy, q);
    spread_square(q_target, foot, a);
    start_x = -scale * foot.along_x() * a;
    start_y = -scale * foot.along_y() * a;
    return;
  }
  // Back through x_b = x - s V(x_m), x_m = x - s V(x) / 2 (cell units, s = dt / h).
  const double xm = x - 0.5 * scale * start.vx, ym = y - 0.5 * scale * start.vy;
  const WrappedSample mu(t.u_lattice, xm, ym, t.u), mv(t.v_lattice, xm, ym, t.v);
  const WrappedSample foot(t.lattice, x - scale * mu.interpolated(), y - scale * mv.interpolated(), q);
  spread_square(q_target, foot, a);
  const double avx = -scale * foot.along_x() * a, avy = -scale * foot.along_y() * a;
  spread_square(0, mu, avx);
  spread_square(1, mv, avy);
  const double axm = avx * mu.along_x() + avy * mv.along_x();
  const double aym = avx * mu.along_y() + avy * mv.along_y();
  start_x = -0.5 * scale * axm;
  start_y = -0.5 * scale * aym;
}

// Sample k = (i, j) of the periodic adjoint as the drivers run it one at a time: the extra add
// first (with `extra_index`), then, unless its output adjoint is zero, the trace's adjoint; its
// starts' adjoints are zero otherwise.
template <Staggering K>
inline void trace_sample_adjoint_at(BandScatter::Band& band, const PeriodicTrace& t, const double* q, const double* dout,
                                    int q_target, const std::int32_t* extra_index, const double* extra_value,
                                    double* start_x, double* start_y, Index k, int i, int j) {
  if (extra_index != nullptr) band.add(q_target, extra_index[k], extra_value[k]);
  start_x[k] = start_y[k] = 0.0;
  if (dout[k] != 0.0) trace_sample_adjoint<K>(band, t, q, q_target, dout[k], i, j, start_x[k], start_y[k]);
}

// Adds to du and dv, over the cells [first, last) of the grid, what the starts of the traces of
// lattice kind `kind` (not kAny) received: start_x and start_y per sample (zero where a sample's
// adjoint was), through the transposes of grid_point's stencils, each velocity value gathering
// from the samples whose trace starts next to it.
void add_start_adjoints(Staggering kind, int nx, int ny, const double* start_x, const double* start_y,
                        std::span<double> du, std::span<double> dv, Index first, Index last);

// Whether this processor runs the four-lane kernels below.
bool vector_traces_available();

// trace_sample for samples [first, last) of lattice kind K into out, four at a time.
template <Staggering K>
void trace_samples_vector(const PeriodicTrace& t, const double* q, double* out, Index first, Index last);

// trace_sample_adjoint for samples [first, last) with output adjoints dout, four traces at a
// time, their scatters one sample after another as the scalar path does, the starts' adjoints
// into start_x and start_y; with `extra_index`, sample k first adds extra_value[k] to
// dq[extra_index[k]]. Samples with zero adjoint add nothing else, and zero starts.
template <Staggering K>
void trace_samples_adjoint_vector(BandScatter::Band& band, const PeriodicTrace& t, const double* q, const double* dout,
                                  int q_target, const std::int32_t* extra_index, const double* extra_value, double* start_x,
                                  double* start_y, Index first, Index last);

}  // namespace simgrad::fluid
