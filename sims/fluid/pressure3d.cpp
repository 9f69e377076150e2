#include "sims/fluid/pressure3d.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/parallel.hpp"
#include "core/conjugate_gradient.hpp"

namespace simgrad::fluid {

Projection3::Projection3(const Grid3& grid, PressureSettings settings) : PressureSolve(settings), grid_(&grid) {
  build();
}

void Projection3::build() {
  const Grid3& g = *grid_;
  const Lattice3 cl = g.cell_lattice();
  const std::size_t n = static_cast<std::size_t>(g.cells());
  stride_ = {1, g.n(0), static_cast<Index>(g.n(0)) * g.n(1)};
  face_offset_ = {0, g.face_count(0), g.face_count(0) + g.face_count(1)};
  diagonal_.assign(n, 1.0);
  for (auto& c : coupled_) c.assign(n, 0);
  fluid_cells_ = 0;
  for (Index c = 0; c < g.cells(); ++c) {
    if (g.solid(c)) continue;
    ++fluid_cells_;
    const std::array<int, 3> ijk = cl.coordinates(c);
    double d = 0.0;
    for (int a = 0; a < 3; ++a) {
      const Index high = g.high_face(a, ijk);
      const Index low = g.low_face(a, ijk);
      d += (g.wall(a, low) ? 0.0 : face_scale(a, low)) + (g.wall(a, high) ? 0.0 : face_scale(a, high));
      // A free face between two cells couples them; one on an open side couples to p = 0.
      if (!g.wall(a, high) && (ijk[static_cast<std::size_t>(a)] + 1 < g.n(a) || g.periodic(a)))
        coupled_[static_cast<std::size_t>(a)][static_cast<std::size_t>(c)] = 1;
    }
    diagonal_[static_cast<std::size_t>(c)] = d;
  }
  inverse_diagonal_.resize(n);
  for (std::size_t c = 0; c < n; ++c) inverse_diagonal_[c] = diagonal_[c] > 0.0 ? 1.0 / diagonal_[c] : 0.0;
  singular_ = !g.has_open_side();
  // MIC(0) on the couplings that do not wrap (Bridson, Fluid Simulation for Computer Graphics).
  constexpr double tau = 0.97, sigma = 0.25;
  precon_.assign(n, 0.0);
  for (Index c = 0; c < g.cells(); ++c) {
    const std::size_t cs = static_cast<std::size_t>(c);
    double e = diagonal_[cs];
    if (!g.solid(c)) {
      const std::array<int, 3> ijk = cl.coordinates(c);
      for (int a = 0; a < 3; ++a) {
        const std::size_t as = static_cast<std::size_t>(a);
        if (ijk[as] == 0) continue;
        const std::size_t below = cs - static_cast<std::size_t>(stride_[as]);
        if (!coupled_[as][below]) continue;
        double others = 0.0;
        for (std::size_t b = 0; b < 3; ++b)
          if (b != as && ijk[b] + 1 < g.n(static_cast<int>(b)) && coupled_[b][below]) others += 1.0;
        e -= precon_[below] * precon_[below] * (1.0 + tau * others);
      }
      if (e < sigma * diagonal_[cs]) e = diagonal_[cs];
    }
    precon_[cs] = e > 0.0 ? 1.0 / std::sqrt(e) : 0.0;
  }
  for (auto* v : {&b_, &p_, &r_, &z_, &s_, &q_}) v->assign(n, 0.0);
  partial_.assign(static_cast<std::size_t>(block_count(g.cells())), 0.0);
}

void Projection3::set_open_face_scale(std::span<const double> scale) {
  open_scale_.assign(scale.begin(), scale.end());
  build();
}

void Projection3::divergence(const ConstVelocity3& velocity, std::span<double> out) const {
  const Grid3& g = *grid_;
  const Lattice3 cl = g.cell_lattice();
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      double d = 0.0;
      if (!g.solid(c)) {
        const std::array<int, 3> ijk = cl.coordinates(c);
        for (int a = 0; a < 3; ++a) {
          const auto& q = velocity[static_cast<std::size_t>(a)];
          d += q[static_cast<std::size_t>(g.high_face(a, ijk))] - q[static_cast<std::size_t>(g.low_face(a, ijk))];
        }
      }
      out[static_cast<std::size_t>(c)] = d / g.h();
    }
  });
}

double Projection3::coupled_sum(std::span<const double> x, Index c) const {
  const Grid3& g = *grid_;
  const std::size_t cs = static_cast<std::size_t>(c);
  const std::array<int, 3> ijk = g.cell_lattice().coordinates(c);
  double y = 0.0;
  for (std::size_t a = 0; a < 3; ++a) {
    const Index span_a = stride_[a] * g.n(static_cast<int>(a));
    const bool top = ijk[a] + 1 == g.n(static_cast<int>(a)), bottom = ijk[a] == 0;
    const std::size_t up = static_cast<std::size_t>(top ? c + stride_[a] - span_a : c + stride_[a]);
    const std::size_t down = static_cast<std::size_t>(bottom ? c - stride_[a] + span_a : c - stride_[a]);
    if (coupled_[a][cs]) y += x[up];
    if ((!bottom || g.periodic(static_cast<int>(a))) && coupled_[a][down]) y += x[down];
  }
  return y;
}

void Projection3::apply_matrix(std::span<const double> x, std::span<double> out) const {
  parallel_for_blocks(grid_->cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      out[cs] = diagonal_[cs] * x[cs] - coupled_sum(x, c);
    }
  });
}

void Projection3::jacobi(std::span<const double> b, std::span<double> x) {
  // Sweeps alternate between x and z_ (even sweeps read x); x <- D^-1 (b + couplings x).
  std::fill(x.begin(), x.end(), 0.0);
  const int sweeps = settings_.jacobi_iterations;
  parallel_sweeps(grid_->cells(), sweeps, [&](int sweep, Index first, Index last) {
    const std::span<const double> source(sweep % 2 == 0 ? x.data() : z_.data(), b.size());
    double* to = sweep % 2 == 0 ? z_.data() : x.data();
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      to[cs] = (b[cs] + coupled_sum(source, c)) * inverse_diagonal_[cs];
    }
  });
  if (sweeps % 2 == 1) std::copy(z_.begin(), z_.begin() + static_cast<std::ptrdiff_t>(b.size()), x.begin());
}

void Projection3::apply_preconditioner(std::span<const double> r, std::span<double> z) {
  const Grid3& g = *grid_;
  const Lattice3 cl = g.cell_lattice();
  // Forward substitution L q = r, then back substitution L^T z = q, in cell order.
  for (Index c = 0; c < g.cells(); ++c) {
    const std::size_t cs = static_cast<std::size_t>(c);
    const std::array<int, 3> ijk = cl.coordinates(c);
    double t = r[cs];
    for (std::size_t a = 0; a < 3; ++a) {
      const std::size_t below = cs - static_cast<std::size_t>(stride_[a]);
      if (ijk[a] > 0 && coupled_[a][below]) t += precon_[below] * q_[below];
    }
    q_[cs] = t * precon_[cs];
  }
  for (Index c = g.cells() - 1; c >= 0; --c) {
    const std::size_t cs = static_cast<std::size_t>(c);
    const std::array<int, 3> ijk = cl.coordinates(c);
    double t = q_[cs];
    for (std::size_t a = 0; a < 3; ++a)
      if (ijk[a] + 1 < g.n(static_cast<int>(a)) && coupled_[a][cs]) t += precon_[cs] * z[cs + static_cast<std::size_t>(stride_[a])];
    z[cs] = t * precon_[cs];
  }
}

void Projection3::remove_mean(std::span<double> x) {
  remove_fluid_mean(x, [&](Index c) { return grid_->solid(c); }, fluid_cells_, partial_);
}

void Projection3::project(const Velocity3& velocity) {
  const Grid3& g = *grid_;
  const double h = g.h();
  divergence({velocity[0], velocity[1], velocity[2]}, b_);
  for (double& x : b_) x *= -h * h;
  solve(b_, p_);
  auto pressure = [&](Index c) { return c < 0 ? 0.0 : p_[static_cast<std::size_t>(c)]; };
  for (int a = 0; a < 3; ++a) {
    const Lattice3 fl = g.face_lattice(a);
    const std::span<double> q = velocity[static_cast<std::size_t>(a)];
    parallel_for_blocks(fl.size(), [&](Index first, Index last) {
      for (Index f = first; f < last; ++f) {
        if (g.wall(a, f)) continue;
        const std::array<int, 3> ijk = fl.coordinates(f);
        q[static_cast<std::size_t>(f)] -= face_scale(a, f) * ((pressure(g.upper_cell(a, ijk)) - pressure(g.lower_cell(a, ijk))) / h);
      }
    });
  }
}

void Projection3::project_adjoint(const Velocity3& adjoint) {
  // Forward: u' = u - W G S P (-h^2 div u), W the open faces' scales. Adjoint:
  // du += h^2 div^T P S G^T W du, each a gather.
  const Grid3& g = *grid_;
  const Lattice3 cl = g.cell_lattice();
  const double h = g.h();
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      double s = 0.0;
      if (!g.solid(c)) {
        const std::array<int, 3> ijk = cl.coordinates(c);
        // G^T: a cell is the upper end of its low face (+) and the lower end of its high face (-).
        for (int a = 0; a < 3; ++a) {
          const auto& d = adjoint[static_cast<std::size_t>(a)];
          const Index low = g.low_face(a, ijk), high = g.high_face(a, ijk);
          if (!g.wall(a, low)) s += face_scale(a, low) * d[static_cast<std::size_t>(low)];
          if (!g.wall(a, high)) s -= face_scale(a, high) * d[static_cast<std::size_t>(high)];
        }
      }
      b_[static_cast<std::size_t>(c)] = s / h;
    }
  });
  solve(b_, p_);
  if (singular_) remove_mean(p_);
  // div^T: a face gets (mu_lower - mu_upper) / h, times h^2.
  auto mu = [&](Index c) { return c < 0 || g.solid(c) ? 0.0 : p_[static_cast<std::size_t>(c)]; };
  for (int a = 0; a < 3; ++a) {
    const Lattice3 fl = g.face_lattice(a);
    const std::span<double> d = adjoint[static_cast<std::size_t>(a)];
    parallel_for_blocks(fl.size(), [&](Index first, Index last) {
      for (Index f = first; f < last; ++f) {
        const std::array<int, 3> ijk = fl.coordinates(f);
        d[static_cast<std::size_t>(f)] += h * (mu(g.lower_cell(a, ijk)) - mu(g.upper_cell(a, ijk)));
      }
    });
  }
}

}  // namespace simgrad::fluid
