#include "sims/fluid/advect.hpp"

#include "core/parallel.hpp"

namespace simgrad::fluid {

namespace {

// The position of sample k of lattice l.
void sample_position(const Lattice& l, double h, Index k, double& x, double& y) {
  x = (static_cast<double>(k % l.cx) + l.ox) * h;
  y = (static_cast<double>(k / l.cx) + l.oy) * h;
}

// The velocity at (x, y) and the stencils that sampled it.
struct Velocity {
  Stencil su, sv;
  double vx, vy;
};

template <bool kDerivatives>
Velocity velocity_at(const Grid& grid, std::span<const double> u, std::span<const double> v, double x, double y) {
  const double h = grid.h();
  Velocity w{stencil_at<kDerivatives>(grid.u_lattice(), h, x, y), stencil_at<kDerivatives>(grid.v_lattice(), h, x, y), 0.0, 0.0};
  w.vx = apply(w.su, u.data());
  w.vy = apply(w.sv, v.data());
  return w;
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

}  // namespace

void advect(const Grid& grid, const Lattice& l, std::span<const double> q, std::span<const double> u,
            std::span<const double> v, double dt, std::span<double> out) {
  const double h = grid.h();
  parallel_for_blocks(static_cast<Index>(l.cx) * l.cy, [&](Index first, Index last) {
    for (Index k = first; k < last; ++k) {
      double x, y;
      sample_position(l, h, k, x, y);
      // Midpoint (second-order Runge-Kutta) trace back: a first-order trace drifts outwards
      // on curved paths, shrinking a rotating blob by about (omega dt)^2 / 2 of its mass a step.
      const Velocity w0 = velocity_at<false>(grid, u, v, x, y);
      const Velocity wm = velocity_at<false>(grid, u, v, x - 0.5 * dt * w0.vx, y - 0.5 * dt * w0.vy);
      out[static_cast<std::size_t>(k)] = apply(stencil_at<false>(l, h, x - dt * wm.vx, y - dt * wm.vy), q.data());
    }
  });
}

void advect_adjoint(const Grid& grid, const Lattice& l, std::span<const double> q, std::span<const double> u,
                    std::span<const double> v, double dt, std::span<const double> dout, std::span<double> dq,
                    std::span<double> du, std::span<double> dv) {
  const double h = grid.h();
  const Index n = static_cast<Index>(l.cx) * l.cy;
  auto scatter = [&](const Velocity& w, double ax, double ay) {
    for (int m = 0; m < 4; ++m) {
      du[static_cast<std::size_t>(w.su.index[m])] += w.su.weight[m] * ax;
      dv[static_cast<std::size_t>(w.sv.index[m])] += w.sv.weight[m] * ay;
    }
  };
  for (Index k = 0; k < n; ++k) {
    const double a = dout[static_cast<std::size_t>(k)];
    if (a == 0.0) continue;
    double x, y;
    sample_position(l, h, k, x, y);
    const Velocity w0 = velocity_at<false>(grid, u, v, x, y);
    const Velocity wm = velocity_at<true>(grid, u, v, x - 0.5 * dt * w0.vx, y - 0.5 * dt * w0.vy);
    const Stencil sq = stencil_at(l, h, x - dt * wm.vx, y - dt * wm.vy);
    for (int m = 0; m < 4; ++m) dq[static_cast<std::size_t>(sq.index[m])] += sq.weight[m] * a;
    // Back through x_b = x - dt V(x_m), x_m = x - dt V(x) / 2.
    const double avx = -dt * along_x(sq, q.data()) * a, avy = -dt * along_y(sq, q.data()) * a;
    scatter(wm, avx, avy);
    const double axm = avx * along_x(wm.su, u.data()) + avy * along_x(wm.sv, v.data());
    const double aym = avx * along_y(wm.su, u.data()) + avy * along_y(wm.sv, v.data());
    scatter(w0, -0.5 * dt * axm, -0.5 * dt * aym);
  }
}

}  // namespace simgrad::fluid
