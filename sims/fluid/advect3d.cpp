#include "sims/fluid/advect3d.hpp"

#include <algorithm>
#include <cmath>

#include <stdexcept>

#include "core/parallel.hpp"
#include "sims/fluid/maccormack.hpp"

namespace simgrad::fluid {

namespace {

// The velocity at a point and the stencils that sampled it.
struct Sampled {
  Stencil3 stencil[3];
  std::array<double, 3> value;
};

// The velocity at point p, each component sampled trilinearly on its face lattice.
template <bool kDerivatives>
Sampled velocity_at(const Grid3& g, const ConstVelocity3& velocity, const std::array<double, 3>& p) {
  Sampled s;
  for (int a = 0; a < 3; ++a) {
    const std::size_t as = static_cast<std::size_t>(a);
    s.stencil[as] = stencil_at<kDerivatives>(g.face_lattice(a), g.h(), p);
    s.value[as] = apply(s.stencil[as], velocity[as].data());
  }
  return s;
}

// Where sample k of lattice l sits.
std::array<double, 3> position_of(const Lattice3& l, double h, Index k) {
  const std::array<int, 3> ijk = l.coordinates(k);
  return {(ijk[0] + l.offset[0]) * h, (ijk[1] + l.offset[1]) * h, (ijk[2] + l.offset[2]) * h};
}

// p - c v.
std::array<double, 3> moved(const std::array<double, 3>& p, double c, const std::array<double, 3>& v) {
  return {p[0] - c * v[0], p[1] - c * v[1], p[2] - c * v[2]};
}

// The adjoint of sample k, scattered into dq and dvelocity.
void sample_adjoint(const Grid3& g, const Lattice3& l, std::span<const double> q, const ConstVelocity3& velocity,
                    double dt, Index k, double a, std::span<double> dq, const Velocity3& dvelocity) {
  if (a == 0.0) return;
  const std::array<double, 3> p = position_of(l, g.h(), k);
  const Sampled w0 = velocity_at<false>(g, velocity, p);
  const Sampled wm = velocity_at<true>(g, velocity, moved(p, 0.5 * dt, w0.value));
  const Stencil3 sq = stencil_at(l, g.h(), moved(p, dt, wm.value));
  for (int m = 0; m < 8; ++m) dq[static_cast<std::size_t>(sq.index[m])] += sq.weight[m] * a;
  // Back through x_b = x - dt V(x_m), x_m = x - dt V(x) / 2.
  double avm[3], apm[3] = {0.0, 0.0, 0.0};
  for (int b = 0; b < 3; ++b) avm[b] = -dt * derivative(sq, b, q.data()) * a;
  for (std::size_t b = 0; b < 3; ++b) {
    const Stencil3& s = wm.stencil[b];
    for (int m = 0; m < 8; ++m) dvelocity[b][static_cast<std::size_t>(s.index[m])] += s.weight[m] * avm[b];
    for (int c = 0; c < 3; ++c) apm[c] += avm[b] * derivative(s, c, velocity[b].data());
  }
  for (std::size_t b = 0; b < 3; ++b) {
    const Stencil3& s = w0.stencil[b];
    for (int m = 0; m < 8; ++m) dvelocity[b][static_cast<std::size_t>(s.index[m])] += s.weight[m] * (-0.5 * dt * apm[b]);
  }
}

// The midpoint trace's foot for sample k of lattice l.
std::array<double, 3> foot_of(const Grid3& g, const Lattice3& l, const ConstVelocity3& velocity, double dt, Index k) {
  const std::array<double, 3> p = position_of(l, g.h(), k);
  const Sampled w0 = velocity_at<false>(g, velocity, p);
  const Sampled wm = velocity_at<false>(g, velocity, moved(p, 0.5 * dt, w0.value));
  return moved(p, dt, wm.value);
}

// Semi-Lagrangian into out; with `lowest` and `highest`, also which of the eight values each
// sample interpolated is the smallest and the largest (for the limiter).
void semi_lagrangian(const Grid3& grid, const Lattice3& l, std::span<const double> q, const ConstVelocity3& velocity,
                     double dt, std::span<double> out, std::int32_t* lowest, std::int32_t* highest) {
  parallel_for_blocks(l.size(), [&](Index first, Index last) {
    for (Index k = first; k < last; ++k) {
      const Stencil3 s = stencil_at<false>(l, grid.h(), foot_of(grid, l, velocity, dt, k));
      out[static_cast<std::size_t>(k)] = apply(s, q.data());
      if (lowest != nullptr) stencil_extremes(s.index, 8, q.data(), lowest[k], highest[k]);
    }
  });
}

// The semi-Lagrangian adjoint; with `extra_index`, sample k also adds extra_value[k] to
// dq[extra_index[k]] (an index the sample's own stencil reaches, so the slabs still hold).
void semi_lagrangian_adjoint(const Grid3& grid, const Lattice3& l, std::span<const double> q,
                             const ConstVelocity3& velocity, double dt, std::span<const double> dout,
                             std::span<double> dq, const Velocity3& dvelocity, const std::int32_t* extra_index,
                             const double* extra_value) {
  // The trace moves a point by at most |dt| max|v|; a stencil spans one more layer, and the
  // lattices are offset from each other by at most one layer.
  double fastest = 0.0;
  for (const auto& component : velocity)
    for (double x : component) fastest = std::max(fastest, std::abs(x));
  const double reach_layers = std::ceil(std::abs(dt) * fastest / grid.h()) + 2.0;
  const Index layer = static_cast<Index>(l.count[0]) * l.count[1];
  const int layers = l.count[2];
  auto run_layers = [&](int first, int last) {
    for (Index k = first * layer; k < last * layer; ++k) {
      if (extra_index != nullptr) dq[static_cast<std::size_t>(extra_index[k])] += extra_value[k];
      sample_adjoint(grid, l, q, velocity, dt, k, dout[static_cast<std::size_t>(k)], dq, dvelocity);
    }
  };
  // Slabs of `thick` layers (the last one takes the rest); colours 0, 1, 2 repeating, and the
  // slabs after the last whole triple get colours of their own (a periodic z joins the last
  // slab to the first).
  const int thick = std::isfinite(reach_layers) && reach_layers < layers ? static_cast<int>(reach_layers) : layers;
  const int slabs = layers / thick;
  // Too few slabs to split: one pass in sample order (decided by the data, never the threads).
  if (slabs < 6) {
    run_layers(0, layers);
    return;
  }
  const int tripled = slabs / 3 * 3;
  const int colours = 3 + (slabs - tripled);
  auto colour_of = [&](int s) { return s < tripled ? s % 3 : 3 + (s - tripled); };
  // The same colour order on one thread as on many: the sums do not depend on the thread count.
  for (int colour = 0; colour < colours; ++colour) {
    parallel_tasks(
        slabs,
        [&](int s) {
          if (colour_of(s) == colour) run_layers(s * thick, s + 1 == slabs ? layers : (s + 1) * thick);
        },
        /*dynamic=*/true);
  }
}

}  // namespace

Advector3::Advector3(const Grid3& grid, Backtrace backtrace) : grid_(&grid) {
  if (backtrace != Backtrace::kMidpoint) throw std::invalid_argument("3D advection traces by the midpoint rule only");
}

void Advector3::semi_lagrangian_together(std::span<const Carried> items, const ConstVelocity3& velocity, double dt) {
  for (const Carried& c : items) {
    if (c.q.empty()) std::fill(c.out.begin(), c.out.end(), 0.0);
    else advect(AdvectionScheme::kSemiLagrangian, c.lattice, c.q, velocity, dt, c.out);
  }
}

void Advector3::semi_lagrangian_adjoint_together(std::span<const CarriedAdjoint> items, const ConstVelocity3& velocity,
                                                 double dt, const Velocity3& dvelocity) {
  for (const CarriedAdjoint& c : items)
    advect_adjoint(AdvectionScheme::kSemiLagrangian, c.lattice, c.q, velocity, dt, c.dout, c.dq, dvelocity);
}

void Advector3::advect(AdvectionScheme scheme, const Lattice3& l, std::span<const double> q,
                       const ConstVelocity3& velocity, double dt, std::span<double> out, int keep) {
  const Grid3& g = *grid_;
  if (scheme == AdvectionScheme::kConservative) throw std::invalid_argument("3D advection has no conservative scheme");
  if (scheme == AdvectionScheme::kSemiLagrangian) return semi_lagrangian(g, l, q, velocity, dt, out, nullptr, nullptr);
  passes_.advect(keep, q, dt, out.subspan(0, static_cast<std::size_t>(l.size())),
                 [&](std::span<const double> from, double step, std::span<double> to, std::int32_t* lowest,
                     std::int32_t* highest) { semi_lagrangian(g, l, from, velocity, step, to, lowest, highest); });
}

void Advector3::advect_adjoint(AdvectionScheme scheme, const Lattice3& l, std::span<const double> q,
                               const ConstVelocity3& velocity, double dt, std::span<const double> dout,
                               std::span<double> dq, const Velocity3& dvelocity, int kept) {
  const Grid3& g = *grid_;
  if (scheme == AdvectionScheme::kConservative) throw std::invalid_argument("3D advection has no conservative scheme");
  if (scheme == AdvectionScheme::kSemiLagrangian)
    return semi_lagrangian_adjoint(g, l, q, velocity, dt, dout, dq, dvelocity, nullptr, nullptr);
  passes_.advect_adjoint(
      kept, q, dt, dout.subspan(0, static_cast<std::size_t>(l.size())), dq,
      [&](std::span<const double> from, double step, std::span<double> to, std::int32_t* lowest, std::int32_t* highest) {
        semi_lagrangian(g, l, from, velocity, step, to, lowest, highest);
      },
      [&](std::span<const double> from, double step, std::span<const double> a, std::span<double> da,
          const std::int32_t* extra_index, const double* extra_value) {
        semi_lagrangian_adjoint(g, l, from, velocity, step, a, da, dvelocity, extra_index, extra_value);
      });
}

void advect(const Grid3& grid, const Lattice3& l, std::span<const double> q, const ConstVelocity3& velocity, double dt,
            std::span<double> out) {
  semi_lagrangian(grid, l, q, velocity, dt, out, nullptr, nullptr);
}

void advect_adjoint(const Grid3& grid, const Lattice3& l, std::span<const double> q, const ConstVelocity3& velocity,
                    double dt, std::span<const double> dout, std::span<double> dq, const Velocity3& dvelocity) {
  semi_lagrangian_adjoint(grid, l, q, velocity, dt, dout, dq, dvelocity, nullptr, nullptr);
}

}  // namespace simgrad::fluid
