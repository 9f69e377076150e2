#include "sims/fluid/advect.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "core/parallel.hpp"
#include "sims/fluid/maccormack.hpp"
#include "sims/fluid/periodic_trace.hpp"
#include "sims/fluid/semi_lagrangian.hpp"

namespace simgrad::fluid {

namespace {

// The velocity at a point and the stencils that sampled it.
struct SampledVelocity {
  Stencil su, sv;
  double vx, vy;
};

// (x, y) in cell units (length / h), as every trace here: no divisions in the inner loops.
template <bool kDerivatives>
SampledVelocity velocity_at(const Grid& grid, std::span<const double> u, std::span<const double> v, double x, double y) {
  SampledVelocity w{stencil_at<kDerivatives>(grid.u_lattice(), 1.0, x, y), stencil_at<kDerivatives>(grid.v_lattice(), 1.0, x, y), 0.0, 0.0};
  w.vx = apply(w.su, u.data());
  w.vy = apply(w.sv, v.data());
  return w;
}

// Sample k's trace back in cell units, scale = dt / h: the velocity at the sample, at the
// midpoint (unset for an Euler trace), and the stencil at the foot (its derivative weights per
// cell). Midpoint (second-order Runge-Kutta): a first-order trace drifts outwards on curved
// paths, shrinking a rotating blob by about (omega dt)^2 / 2 of its mass a step.
template <bool kDerivatives>
struct Trace {
  SampledVelocity start, middle;
  Stencil foot;
};

template <bool kDerivatives>
Trace<kDerivatives> trace_back(const Grid& grid, const Lattice& l, std::span<const double> u, std::span<const double> v,
                               double scale, int i, int j, Backtrace backtrace) {
  const double x = i + l.ox, y = j + l.oy;
  Trace<kDerivatives> t;
  t.start = velocity_at<false>(grid, u, v, x, y);
  if (backtrace == Backtrace::kEuler) {
    t.foot = stencil_at<kDerivatives>(l, 1.0, x - scale * t.start.vx, y - scale * t.start.vy);
    return t;
  }
  t.middle = velocity_at<kDerivatives>(grid, u, v, x - 0.5 * scale * t.start.vx, y - 0.5 * scale * t.start.vy);
  t.foot = stencil_at<kDerivatives>(l, 1.0, x - scale * t.middle.vx, y - scale * t.middle.vy);
  return t;
}

// Steps (i, j) to the next sample of lattice l, row by row: no integer division per sample.
inline void next_sample(const Lattice& l, int& i, int& j) {
  if (++i == l.cx) {
    i = 0;
    ++j;
  }
}

// The foot of the trace back of sample (i, j) in cell units, as trace_back finds it (the same bits).
void foot_of(const Grid& grid, const Lattice& l, const double* u, const double* v, double dt, int i, int j,
             Backtrace backtrace, double& x, double& y) {
  trace_foot(grid.u_lattice(), grid.v_lattice(), l, u, v, dt / grid.h(), i, j, backtrace == Backtrace::kEuler, x, y);
}

// The derivative of a stencil's value along x and y.
double along_x(const Stencil& s, const double* f) {
  double d = 0.0;
  for (int m = 0; m < 4; ++m) d += s.dweight_dx[m] * f[s.index[m]];
  return d;
}
double along_y(const Stencil& s, const double* f) {
  double d = 0.0;
  for (int m = 0; m < 4; ++m) d += s.dweight_dy[m] * f[s.index[m]];
  return d;
}

// The largest |x| of the values (NaNs aside: a non-finite state stops the step before its
// adjoint). A max reduction gives the same value in any order, so it may vectorise.
double largest_magnitude(std::span<const double> values) {
  const double* v = values.data();
  const std::size_t n = values.size();
  double largest = 0.0;
#pragma omp simd reduction(max : largest)
  for (std::size_t k = 0; k < n; ++k) largest = std::max(largest, std::abs(v[k]));
  return largest;
}

}  // namespace

// The foot lies within dt max|velocity| of the sample, since bilinear sampling never exceeds the
// largest sampled value. A non-finite velocity gives every band the whole lattice.
int trace_reach(const Grid& grid, std::span<const double> u, std::span<const double> v, double dt, int rows) {
  const double largest = std::max(largest_magnitude(u), largest_magnitude(v));
  const double cells = std::abs(dt) * largest / grid.h();
  if (!(cells < rows)) return rows + 2;
  return static_cast<int>(cells) + 3;
}

namespace {

// The faces of a cell: left, right (x-faces), bottom, top (y-faces).
struct CellFaces {
  Index face[4];
};

CellFaces faces_of(const Grid& g, Index c) {
  const int i = static_cast<int>(c % g.nx()), j = static_cast<int>(c / g.nx());
  return {{g.u_face(i, j), g.right_face(i, j), g.v_face(i, j), g.top_face(i, j)}};
}

// The staggering of lattice l when the grid is periodic along both axes and a periodic path is
// wanted, else kAny.
Staggering staggering_of(const Grid& g, const Lattice& l, TracePath path) {
  if (path == TracePath::kGeneral || !g.periodic_x() || !g.periodic_y()) return Staggering::kAny;
  if (l.ox == 0.0 && l.oy == 0.5) return Staggering::kU;
  if (l.ox == 0.5 && l.oy == 0.0) return Staggering::kV;
  if (l.ox == 0.5 && l.oy == 0.5) return Staggering::kCell;
  return Staggering::kAny;
}

// Calls body(std::integral_constant<Staggering, K>) for the staggering k.
template <class Body>
void with_staggering(Staggering k, const Body& body) {
  switch (k) {
    case Staggering::kU: return body(std::integral_constant<Staggering, Staggering::kU>{});
    case Staggering::kV: return body(std::integral_constant<Staggering, Staggering::kV>{});
    case Staggering::kCell: return body(std::integral_constant<Staggering, Staggering::kCell>{});
    case Staggering::kAny: return body(std::integral_constant<Staggering, Staggering::kAny>{});
  }
}

// What the periodic paths' traces of lattice l read.
PeriodicTrace periodic_trace(const Grid& g, const Lattice& l, const double* u, const double* v, double dt,
                             Backtrace backtrace) {
  return {g.nx(), g.ny(), l, g.u_lattice(), g.v_lattice(), u, v, dt / g.h(), backtrace == Backtrace::kEuler};
}

// Semi-Lagrangian samples [first, last) of lattice l into out (no limiter data); K as
// staggering_of gives it: kAny through the general stencils, else the periodic path (the same
// bits), four samples at a time when `vector`.
template <Staggering K>
void semi_lagrangian_samples(const Grid& g, const Lattice& l, const double* q, const double* u, const double* v,
                             double dt, Backtrace backtrace, bool vector, double* out, Index first, Index last) {
  int i = static_cast<int>(first % l.cx), j = static_cast<int>(first / l.cx);
  if constexpr (K == Staggering::kAny) {
    for (Index k = first; k < last; ++k, next_sample(l, i, j)) {
      double x, y;
      foot_of(g, l, u, v, dt, i, j, backtrace, x, y);
      out[k] = sample(l, x, y, q);
    }
  } else {
    const PeriodicTrace t = periodic_trace(g, l, u, v, dt, backtrace);
    if (vector) return trace_samples_vector<K>(t, q, out, first, last);
    for (Index k = first; k < last; ++k, next_sample(l, i, j)) out[k] = trace_sample<K>(t, q, i, j);
  }
}

// The adjoint of semi_lagrangian_samples over samples [first, last) into a band of the scatter
// (targets 0: du, 1: dv, q_target: dq); with `extra_index`, sample k also adds extra_value[k]
// to dq[extra_index[k]]. The periodic path leaves what reaches the traces' starts in start_x and
// start_y (add_start_adjoints adds it); the general stencils scatter it with the rest.
template <Staggering K>
void semi_lagrangian_adjoint_samples(BandScatter::Band& band, const Grid& g, const Lattice& l, std::span<const double> q,
                                     std::span<const double> u, std::span<const double> v, double dt,
                                     Backtrace backtrace, bool vector, std::span<const double> dout, int q_target,
                                     const std::int32_t* extra_index, const double* extra_value, double* start_x,
                                     double* start_y, Index first, Index last) {
  int i = static_cast<int>(first % l.cx), j = static_cast<int>(first / l.cx);
  if constexpr (K != Staggering::kAny) {
    const PeriodicTrace t = periodic_trace(g, l, u.data(), v.data(), dt, backtrace);
    if (vector)
      return trace_samples_adjoint_vector<K>(band, t, q.data(), dout.data(), q_target, extra_index, extra_value, start_x,
                                             start_y, first, last);
    for (Index k = first; k < last; ++k, next_sample(l, i, j))
      trace_sample_adjoint_at<K>(band, t, q.data(), dout.data(), q_target, extra_index, extra_value, start_x, start_y, k, i,
                                 j);
    return;
  }
  const double scale = dt / g.h();
  // Each target's values in order, as the periodic path adds them.
  auto spread_square = [&](int target, const Stencil& s, double w) {
    const double values[4] = {s.weight[0] * w, s.weight[1] * w, s.weight[2] * w, s.weight[3] * w};
    band.add_square(target, s.index, values);
  };
  auto spread = [&](const SampledVelocity& w, double ax, double ay) {
    spread_square(0, w.su, ax);
    spread_square(1, w.sv, ay);
  };
  for (Index k = first; k < last; ++k, next_sample(l, i, j)) {
    const double a = dout[static_cast<std::size_t>(k)];
    if (extra_index != nullptr) band.add(q_target, extra_index[k], extra_value[k]);
    if (a == 0.0) continue;
    const Trace<true> t = trace_back<true>(g, l, u, v, scale, i, j, backtrace);
    spread_square(q_target, t.foot, a);
    // Back through x_b = x - s V(x_m), x_m = x - s V(x) / 2 (cell units, s = dt / h), or
    // x_b = x - s V(x).
    const double avx = -scale * along_x(t.foot, q.data()) * a, avy = -scale * along_y(t.foot, q.data()) * a;
    if (backtrace == Backtrace::kEuler) {
      spread(t.start, avx, avy);
      continue;
    }
    spread(t.middle, avx, avy);
    const double axm = avx * along_x(t.middle.su, u.data()) + avy * along_x(t.middle.sv, v.data());
    const double aym = avx * along_y(t.middle.su, u.data()) + avy * along_y(t.middle.sv, v.data());
    spread(t.start, -0.5 * scale * axm, -0.5 * scale * aym);
  }
}

}  // namespace

Advector::Advector(const Grid& grid, Backtrace backtrace, TracePath path)
    : grid_(&grid),
      backtrace_(backtrace),
      path_(path),
      vector_(path == TracePath::kFastest && vector_traces_available() &&
              std::max({grid.u_count(), grid.v_count(), grid.cells()}) < (Index{1} << 31)) {
  const std::size_t n = static_cast<std::size_t>(std::max({grid.u_count(), grid.v_count(), grid.cells()}));
  for (auto* b : {&start_x_, &start_y_}) b->assign(n * kMaxTogether, 0.0);
  for (auto* b : {&flux_, &dflux_}) b->assign(static_cast<std::size_t>(grid.u_count() + grid.v_count()), 0.0);
}

void Advector::advect(AdvectionScheme scheme, const Lattice& l, std::span<const double> q,
                      const ConstVelocity<2>& velocity, double dt, std::span<double> out, int keep) {
  const std::span<const double> u = velocity[0], v = velocity[1];
  switch (scheme) {
    case AdvectionScheme::kSemiLagrangian: return semi_lagrangian(l, q, u, v, dt, out, nullptr, nullptr);
    case AdvectionScheme::kMacCormack: return maccormack(l, q, u, v, dt, out, keep);
    case AdvectionScheme::kConservative: return conservative(q, u, v, dt, out);
  }
}

void Advector::advect_adjoint(AdvectionScheme scheme, const Lattice& l, std::span<const double> q,
                              const ConstVelocity<2>& velocity, double dt, std::span<const double> dout,
                              std::span<double> dq, const Velocity<2>& dvelocity, int kept) {
  const std::span<const double> u = velocity[0], v = velocity[1];
  const std::span<double> du = dvelocity[0], dv = dvelocity[1];
  switch (scheme) {
    case AdvectionScheme::kSemiLagrangian: return semi_lagrangian_adjoint(l, q, u, v, dt, dout, dq, du, dv, nullptr, nullptr);
    case AdvectionScheme::kMacCormack: return maccormack_adjoint(l, q, u, v, dt, dout, dq, du, dv, kept);
    case AdvectionScheme::kConservative: return conservative_adjoint(q, u, v, dt, dout, dq, du, dv);
  }
}

void Advector::semi_lagrangian(const Lattice& l, std::span<const double> q, std::span<const double> u,
                               std::span<const double> v, double dt, std::span<double> out, std::int32_t* lowest,
                               std::int32_t* highest) {
  const Grid& g = *grid_;
  if (lowest == nullptr) {
    with_staggering(staggering_of(g, l, path_), [&](auto kind) {
      parallel_for_blocks(static_cast<Index>(l.cx) * l.cy, [&](Index first, Index last) {
        semi_lagrangian_samples<decltype(kind)::value>(g, l, q.data(), u.data(), v.data(), dt, backtrace_, vector_,
                                                       out.data(), first, last);
      });
    });
    return;
  }
  parallel_for_blocks(static_cast<Index>(l.cx) * l.cy, [&](Index first, Index last) {
    int i = static_cast<int>(first % l.cx), j = static_cast<int>(first / l.cx);
    for (Index k = first; k < last; ++k, next_sample(l, i, j)) {
      double x, y;
      foot_of(g, l, u.data(), v.data(), dt, i, j, backtrace_, x, y);
      const Stencil s = stencil_at<false>(l, 1.0, x, y);
      out[static_cast<std::size_t>(k)] = apply(s, q.data());
      stencil_extremes(s.index, 4, q.data(), lowest[k], highest[k]);
    }
  });
}

void Advector::semi_lagrangian_together(std::span<const Carried> items, const ConstVelocity<2>& velocity, double dt) {
  const std::span<const double> u = velocity[0], v = velocity[1];
  const Grid& g = *grid_;
  // The samples [first, last) of a lattice computed here: all, or those of this process's rows.
  auto own_samples = [&](const Lattice& l) {
    const RowRun rows = rows_here(slabs_, l.cy);
    return std::pair(static_cast<Index>(rows.first) * l.cx, static_cast<Index>(rows.last) * l.cx);
  };
  Index n = 0;
  for (const Carried& c : items) n = std::max(n, own_samples(c.lattice).second - own_samples(c.lattice).first);
  parallel_for_blocks(n, [&](Index block_first, Index block_last) {
    for (const Carried& c : items) {
      const auto [offset, end_of_own] = own_samples(c.lattice);
      const Index first = offset + block_first, end = std::min(offset + block_last, end_of_own);
      if (first >= end) continue;
      if (c.q.empty()) {
        std::fill(c.out.begin() + first, c.out.begin() + end, 0.0);
        continue;
      }
      with_staggering(staggering_of(g, c.lattice, path_), [&](auto kind) {
        semi_lagrangian_samples<decltype(kind)::value>(g, c.lattice, c.q.data(), u.data(), v.data(), dt, backtrace_, vector_,
                                                       c.out.data(), first, end);
      });
    }
  });
}

int Advector::agreed_reach(std::span<const double> u, std::span<const double> v, double dt, int rows) const {
  const Grid& g = *grid_;
  if (!slabs_) return trace_reach(g, u, v, dt, rows);
  const int mine = trace_reach(g, rows_of(u, slabs_->own(g.ny()), g.u_columns()), rows_of(v, slabs_->own(g.v_rows()), g.nx()),
                               dt, rows);
  return slabs_->largest(mine);
}

void Advector::semi_lagrangian_adjoint(const Lattice& l, std::span<const double> q, std::span<const double> u,
                                       std::span<const double> v, double dt, std::span<const double> dout,
                                       std::span<double> dq, std::span<double> du, std::span<double> dv,
                                       const std::int32_t* extra_index, const double* extra_value) {
  const Grid& g = *grid_;
  // Targets: dq, du, dv; a dq that is du or dv shares its target (two targets must not write
  // the same values at once).
  BandScatter::Target targets[3];
  int count = 0;
  targets[count++] = {du, g.u_lattice().cx, g.u_lattice().cy, g.periodic_y()};
  targets[count++] = {dv, g.v_lattice().cx, g.v_lattice().cy, g.periodic_y()};
  int q_target = count;
  if (dq.data() == du.data()) q_target = 0;
  else if (dq.data() == dv.data()) q_target = 1;
  else targets[count++] = {dq, l.cx, l.cy, l.wrap_y};
  const int reach = agreed_reach(u, v, dt, std::max(g.ny(), l.cy));
  const Staggering staggering = staggering_of(g, l, path_);
  scatter_.scatter(l.cx, l.cy, reach, std::span<const BandScatter::Target>(targets, static_cast<std::size_t>(count)),
                   [&](BandScatter::Band& band, Index first, Index last) {
    with_staggering(staggering, [&](auto kind) {
      semi_lagrangian_adjoint_samples<decltype(kind)::value>(band, g, l, q, u, v, dt, backtrace_, vector_, dout, q_target,
                                                             extra_index, extra_value, start_x_.data(), start_y_.data(),
                                                             first, last);
    });
  });
  if (staggering != Staggering::kAny)
    parallel_for_blocks(g.cells(), [&](Index first, Index last) {
      add_start_adjoints(staggering, g.nx(), g.ny(), start_x_.data(), start_y_.data(), du, dv, first, last);
    });
}

void Advector::semi_lagrangian_adjoint_together(std::span<const CarriedAdjoint> items, const ConstVelocity<2>& velocity,
                                                double dt, const Velocity<2>& dvelocity) {
  const std::span<const double> u = velocity[0], v = velocity[1];
  const std::span<double> du = dvelocity[0], dv = dvelocity[1];
  const Grid& g = *grid_;
  if (items.size() > static_cast<std::size_t>(kMaxTogether)) throw std::logic_error("Advector: too many quantities together");
  if (path_ == TracePath::kGeneral || !g.periodic_x() || !g.periodic_y()) {
    for (const CarriedAdjoint& c : items) semi_lagrangian_adjoint(c.lattice, c.q, u, v, dt, c.dout, c.dq, du, dv, nullptr, nullptr);
    return;
  }
  // Targets du, dv and each quantity's own dq; every lattice has the grid's nx x ny samples.
  BandScatter::Target targets[BandScatter::kMaxTargets];
  int count = 0, q_target[kMaxTogether];
  targets[count++] = {du, g.nx(), g.ny(), true};
  targets[count++] = {dv, g.nx(), g.ny(), true};
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::span<double> dq = items[k].dq;
    if (dq.data() == du.data()) q_target[k] = 0;
    else if (dq.data() == dv.data()) q_target[k] = 1;
    else if (count < BandScatter::kMaxTargets) {
      q_target[k] = count;
      targets[count++] = {dq, g.nx(), g.ny(), true};
    } else {
      throw std::logic_error("Advector: too many adjoint targets together");
    }
  }
  const std::size_t n = static_cast<std::size_t>(g.cells());
  // Split, the reach of the whole velocity: the largest of the slabs' (the windows' rows, and so
  // where a +0 is added, must be the whole scatter's).
  const RowRun rows = rows_here(slabs_, g.ny());
  const Index first_cell = static_cast<Index>(rows.first) * g.nx(), own_cells = static_cast<Index>(rows.count()) * g.nx();
  const int reach = agreed_reach(u, v, dt, g.ny());
  scatter_.scatter(g.nx(), g.ny(), reach, std::span<const BandScatter::Target>(targets, static_cast<std::size_t>(count)),
                   [&](BandScatter::Band& band, Index first, Index last) {
    for (std::size_t k = 0; k < items.size(); ++k)
      with_staggering(staggering_of(g, items[k].lattice, path_), [&](auto kind) {
        semi_lagrangian_adjoint_samples<decltype(kind)::value>(band, g, items[k].lattice, items[k].q, u, v, dt, backtrace_,
                                                               vector_, items[k].dout, q_target[k], nullptr, nullptr,
                                                               start_x_.data() + k * n, start_y_.data() + k * n, first, last);
      });
  });
  if (slabs_)  // the starts' stencils read start_x a row above and start_y a row below
    for (std::size_t k = 0; k < items.size(); ++k) {
      slabs_->fill_halo(std::span(start_x_).subspan(k * n, n), g.nx(), 0, 1, true);
      slabs_->fill_halo(std::span(start_y_).subspan(k * n, n), g.nx(), 1, 0, true);
    }
  parallel_for_blocks(own_cells, [&](Index block_first, Index block_last) {
    const Index first = first_cell + block_first, last = first_cell + block_last;
    for (std::size_t k = 0; k < items.size(); ++k) {
      const Staggering staggering = staggering_of(g, items[k].lattice, path_);
      if (staggering != Staggering::kAny)
        add_start_adjoints(staggering, g.nx(), g.ny(), start_x_.data() + k * n, start_y_.data() + k * n, du, dv, first, last);
    }
  });
}

void Advector::maccormack(const Lattice& l, std::span<const double> q, std::span<const double> u,
                          std::span<const double> v, double dt, std::span<double> out, int keep) {
  const std::size_t n = static_cast<std::size_t>(l.cx) * static_cast<std::size_t>(l.cy);
  passes_.advect(keep, q, dt, out.subspan(0, n), [&](std::span<const double> from, double step, std::span<double> to,
                                                     std::int32_t* lowest, std::int32_t* highest) {
    semi_lagrangian(l, from, u, v, step, to, lowest, highest);
  });
}

void Advector::maccormack_adjoint(const Lattice& l, std::span<const double> q, std::span<const double> u,
                                  std::span<const double> v, double dt, std::span<const double> dout,
                                  std::span<double> dq, std::span<double> du, std::span<double> dv, int kept) {
  const std::size_t n = static_cast<std::size_t>(l.cx) * static_cast<std::size_t>(l.cy);
  passes_.advect_adjoint(
      kept, q, dt, dout.subspan(0, n), dq,
      [&](std::span<const double> from, double step, std::span<double> to, std::int32_t* lowest, std::int32_t* highest) {
        semi_lagrangian(l, from, u, v, step, to, lowest, highest);
      },
      [&](std::span<const double> from, double step, std::span<const double> a, std::span<double> da,
          const std::int32_t* extra_index, const double* extra_value) {
        semi_lagrangian_adjoint(l, from, u, v, step, a, da, du, dv, extra_index, extra_value);
      });
}

void Advector::conservative(std::span<const double> q, std::span<const double> u, std::span<const double> v, double dt,
                            std::span<double> out) {
  const Grid& g = *grid_;
  const double c = dt / g.h();
  // Each face's upwind flux once, so both cells see the same bits.
  double* flux_u = flux_.data();
  double* flux_v = flux_.data() + g.u_count();
  auto value = [&](Index cell) { return cell < 0 ? 0.0 : q[static_cast<std::size_t>(cell)]; };
  parallel_for_blocks(g.u_count(), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      const int i = static_cast<int>(f % g.u_columns()), j = static_cast<int>(f / g.u_columns());
      const double w = g.u_wall(f) ? 0.0 : u[static_cast<std::size_t>(f)];
      flux_u[f] = w * (w > 0.0 ? value(g.u_left(i, j)) : value(g.u_right(i, j)));
    }
  });
  parallel_for_blocks(g.v_count(), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      const int i = static_cast<int>(f % g.nx()), j = static_cast<int>(f / g.nx());
      const double w = g.v_wall(f) ? 0.0 : v[static_cast<std::size_t>(f)];
      flux_v[f] = w * (w > 0.0 ? value(g.v_below(i, j)) : value(g.v_above(i, j)));
    }
  });
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index cell = first; cell < last; ++cell) {
      const CellFaces f = faces_of(g, cell);
      out[static_cast<std::size_t>(cell)] =
          q[static_cast<std::size_t>(cell)] - c * ((flux_u[f.face[1]] - flux_u[f.face[0]]) + (flux_v[f.face[3]] - flux_v[f.face[2]]));
    }
  });
}

void Advector::conservative_adjoint(std::span<const double> q, std::span<const double> u, std::span<const double> v,
                                    double dt, std::span<const double> dout, std::span<double> dq,
                                    std::span<double> du, std::span<double> dv) {
  const Grid& g = *grid_;
  const double c = dt / g.h();
  // A face's flux F leaves the cell below / left (out -= c F) and enters the other: dF = c (a_other
  // - a_this); the flux w q_upwind sends dF w to the upwind cell and dF q_upwind to w.
  double* dflux_u = dflux_.data();
  double* dflux_v = dflux_.data() + g.u_count();
  auto value = [&](Index cell) { return cell < 0 ? 0.0 : q[static_cast<std::size_t>(cell)]; };
  auto adjoint = [&](Index cell) { return cell < 0 ? 0.0 : dout[static_cast<std::size_t>(cell)]; };
  parallel_for_blocks(g.u_count(), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      dflux_u[f] = 0.0;
      if (g.u_wall(f)) continue;
      const int i = static_cast<int>(f % g.u_columns()), j = static_cast<int>(f / g.u_columns());
      const Index left = g.u_left(i, j), right = g.u_right(i, j);
      const double w = u[static_cast<std::size_t>(f)];
      dflux_u[f] = c * (adjoint(right) - adjoint(left));
      du[static_cast<std::size_t>(f)] += (w > 0.0 ? value(left) : value(right)) * dflux_u[f];
    }
  });
  parallel_for_blocks(g.v_count(), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      dflux_v[f] = 0.0;
      if (g.v_wall(f)) continue;
      const int i = static_cast<int>(f % g.nx()), j = static_cast<int>(f / g.nx());
      const Index below = g.v_below(i, j), above = g.v_above(i, j);
      const double w = v[static_cast<std::size_t>(f)];
      dflux_v[f] = c * (adjoint(above) - adjoint(below));
      dv[static_cast<std::size_t>(f)] += (w > 0.0 ? value(below) : value(above)) * dflux_v[f];
    }
  });
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index cell = first; cell < last; ++cell) {
      const CellFaces f = faces_of(g, cell);
      double s = dout[static_cast<std::size_t>(cell)];
      // The cell is upwind of its left / bottom face when the flow there leaves it (w <= 0), of
      // its right / top face when w > 0.
      const double wl = g.u_wall(f.face[0]) ? 0.0 : u[static_cast<std::size_t>(f.face[0])];
      const double wr = g.u_wall(f.face[1]) ? 0.0 : u[static_cast<std::size_t>(f.face[1])];
      const double wb = g.v_wall(f.face[2]) ? 0.0 : v[static_cast<std::size_t>(f.face[2])];
      const double wt = g.v_wall(f.face[3]) ? 0.0 : v[static_cast<std::size_t>(f.face[3])];
      if (!(wl > 0.0)) s += wl * dflux_u[f.face[0]];
      if (wr > 0.0) s += wr * dflux_u[f.face[1]];
      if (!(wb > 0.0)) s += wb * dflux_v[f.face[2]];
      if (wt > 0.0) s += wt * dflux_v[f.face[3]];
      dq[static_cast<std::size_t>(cell)] += s;
    }
  });
}

void advect(const Grid& grid, const Lattice& l, std::span<const double> q, const ConstVelocity<2>& velocity, double dt,
            std::span<double> out) {
  Advector(grid).advect(AdvectionScheme::kSemiLagrangian, l, q, velocity, dt, out);
}

void advect_adjoint(const Grid& grid, const Lattice& l, std::span<const double> q, const ConstVelocity<2>& velocity,
                    double dt, std::span<const double> dout, std::span<double> dq, const Velocity<2>& dvelocity) {
  Advector(grid).advect_adjoint(AdvectionScheme::kSemiLagrangian, l, q, velocity, dt, dout, dq, dvelocity);
}

}  // namespace simgrad::fluid
