#include "sims/fluid/confinement.hpp"

#include <cmath>

#include "core/parallel.hpp"

namespace simgrad::fluid {

namespace {

// Smooths |x| and |eta| at zero: sqrt(x^2 + kTiny) is differentiable everywhere.
constexpr double kTiny = 1e-24;

}  // namespace

Confinement::Confinement(const Grid& grid) : grid_(&grid) {
  const std::size_t n = static_cast<std::size_t>(grid.cells());
  for (auto* f : {&cell_u_, &cell_v_, &omega_, &magnitude_, &normal_x_, &normal_y_, &eta_norm_, &force_x_, &force_y_,
                  &a_omega_, &a_eta_x_, &a_eta_y_, &a_magnitude_, &a_cell_u_, &a_cell_v_})
    f->assign(n, 0.0);
  partial_.assign(static_cast<std::size_t>(block_count(grid.cells())), 0.0);
}

void Confinement::neighbours(Index c, Index out[4]) const {
  const Grid& g = *grid_;
  const int nx = g.nx(), ny = g.ny();
  const int i = static_cast<int>(c % nx), j = static_cast<int>(c / nx);
  const bool wx = g.periodic_x(), wy = g.periodic_y();
  out[0] = g.cell(i > 0 ? i - 1 : (wx ? nx - 1 : i), j);
  out[1] = g.cell(i + 1 < nx ? i + 1 : (wx ? 0 : i), j);
  out[2] = g.cell(i, j > 0 ? j - 1 : (wy ? ny - 1 : j));
  out[3] = g.cell(i, j + 1 < ny ? j + 1 : (wy ? 0 : j));
}

void Confinement::compute(std::span<const double> u, std::span<const double> v) {
  const Grid& g = *grid_;
  const double half_h = 0.5 / g.h();
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const int i = static_cast<int>(c % g.nx()), j = static_cast<int>(c / g.nx());
      const std::size_t cs = static_cast<std::size_t>(c);
      cell_u_[cs] = 0.5 * (u[static_cast<std::size_t>(g.u_face(i, j))] + u[static_cast<std::size_t>(g.right_face(i, j))]);
      cell_v_[cs] = 0.5 * (v[static_cast<std::size_t>(g.v_face(i, j))] + v[static_cast<std::size_t>(g.top_face(i, j))]);
    }
  });
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      Index n[4];
      neighbours(c, n);
      const std::size_t cs = static_cast<std::size_t>(c);
      omega_[cs] = (cell_v_[static_cast<std::size_t>(n[1])] - cell_v_[static_cast<std::size_t>(n[0])] -
                    cell_u_[static_cast<std::size_t>(n[3])] + cell_u_[static_cast<std::size_t>(n[2])]) *
                   half_h;
      magnitude_[cs] = std::sqrt(omega_[cs] * omega_[cs] + kTiny);
    }
  });
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      Index n[4];
      neighbours(c, n);
      const std::size_t cs = static_cast<std::size_t>(c);
      const double ex = (magnitude_[static_cast<std::size_t>(n[1])] - magnitude_[static_cast<std::size_t>(n[0])]) * half_h;
      const double ey = (magnitude_[static_cast<std::size_t>(n[3])] - magnitude_[static_cast<std::size_t>(n[2])]) * half_h;
      eta_norm_[cs] = std::sqrt(ex * ex + ey * ey + kTiny);
      normal_x_[cs] = ex / eta_norm_[cs];
      normal_y_[cs] = ey / eta_norm_[cs];
    }
  });
}

void Confinement::apply(const SmokeModel& m, const Velocity<2>& velocity) {
  const std::span<double> u = velocity[0], v = velocity[1];
  const Grid& g = *grid_;
  compute(u, v);
  const double scale = m.confinement.values()[0] * g.h(), dt = m.settings.dt;
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      const bool fluid = !g.solid(c);
      force_x_[cs] = fluid ? scale * normal_y_[cs] * omega_[cs] : 0.0;
      force_y_[cs] = fluid ? -scale * normal_x_[cs] * omega_[cs] : 0.0;
    }
  });
  // A face takes the mean force of the cells beside it (one beside an open side).
  auto mean = [](const std::vector<double>& f, Index a, Index b) {
    const int n = (a >= 0) + (b >= 0);
    return ((a >= 0 ? f[static_cast<std::size_t>(a)] : 0.0) + (b >= 0 ? f[static_cast<std::size_t>(b)] : 0.0)) / n;
  };
  parallel_for_blocks(g.u_count(), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      if (g.u_wall(f)) continue;
      const int i = static_cast<int>(f % g.u_columns()), j = static_cast<int>(f / g.u_columns());
      u[static_cast<std::size_t>(f)] += dt * mean(force_x_, g.u_left(i, j), g.u_right(i, j));
    }
  });
  parallel_for_blocks(g.v_count(), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      if (g.v_wall(f)) continue;
      const int i = static_cast<int>(f % g.nx()), j = static_cast<int>(f / g.nx());
      v[static_cast<std::size_t>(f)] += dt * mean(force_y_, g.v_below(i, j), g.v_above(i, j));
    }
  });
}

void Confinement::difference_adjoint(const double* ax, const double* ay, double* out_x, double* out_y) const {
  const Grid& g = *grid_;
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index n = first; n < last; ++n) {
      // The cells that can name n as a neighbour: n itself (at a side) and its neighbours.
      Index candidates[5];
      candidates[0] = n;
      neighbours(n, candidates + 1);
      double sx = 0.0, sy = 0.0;
      for (int k = 0; k < 5; ++k) {
        const Index c = candidates[k];
        bool seen = false;
        for (int p = 0; p < k; ++p) seen = seen || candidates[p] == c;
        if (seen) continue;
        Index nc[4];
        neighbours(c, nc);
        const std::size_t cs = static_cast<std::size_t>(c);
        if (nc[1] == n) sx += ax[cs];
        if (nc[0] == n) sx -= ax[cs];
        if (nc[3] == n) sy += ay[cs];
        if (nc[2] == n) sy -= ay[cs];
      }
      const std::size_t ns = static_cast<std::size_t>(n);
      if (out_x == out_y) {
        out_x[ns] = sx + sy;
      } else {
        out_x[ns] = sx;
        out_y[ns] = sy;
      }
    }
  });
}

void Confinement::apply_adjoint(SmokeModel& m, const ConstVelocity<2>& velocity, const Velocity<2>& adjoint) {
  const std::span<const double> u = velocity[0], v = velocity[1];
  const std::span<double> du = adjoint[0], dv = adjoint[1];
  const Grid& g = *grid_;
  compute(u, v);
  const double epsilon = m.confinement.values()[0], h = g.h(), dt = m.settings.dt, half_h = 0.5 / h;
  // The forces' adjoints (a gather of the faces beside each cell), epsilon's per block, and the
  // adjoints of omega (direct part) and of eta.
  parallel_for_indexed_blocks(g.cells(), [&](Index block, Index first, Index last) {
    double de = 0.0;
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      a_omega_[cs] = a_eta_x_[cs] = a_eta_y_[cs] = 0.0;
      if (g.solid(c)) continue;
      const int i = static_cast<int>(c % g.nx()), j = static_cast<int>(c / g.nx());
      double fx = 0.0, fy = 0.0;
      for (Index f : {g.u_face(i, j), g.right_face(i, j)}) {
        if (g.u_wall(f)) continue;
        const int fi = static_cast<int>(f % g.u_columns()), fj = static_cast<int>(f / g.u_columns());
        fx += dt * du[static_cast<std::size_t>(f)] / ((g.u_left(fi, fj) >= 0) + (g.u_right(fi, fj) >= 0));
      }
      for (Index f : {g.v_face(i, j), g.top_face(i, j)}) {
        if (g.v_wall(f)) continue;
        const int fi = static_cast<int>(f % g.nx()), fj = static_cast<int>(f / g.nx());
        fy += dt * dv[static_cast<std::size_t>(f)] / ((g.v_below(fi, fj) >= 0) + (g.v_above(fi, fj) >= 0));
      }
      const double w = omega_[cs], nx = normal_x_[cs], ny = normal_y_[cs];
      de += h * (ny * w * fx - nx * w * fy);
      a_omega_[cs] = epsilon * h * (ny * fx - nx * fy);
      // N = eta / |eta|: a_eta = (a_N - N (N . a_N)) / |eta|.
      const double anx = -epsilon * h * w * fy, any = epsilon * h * w * fx;
      const double along = nx * anx + ny * any;
      a_eta_x_[cs] = (anx - nx * along) / eta_norm_[cs] * half_h;
      a_eta_y_[cs] = (any - ny * along) / eta_norm_[cs] * half_h;
    }
    partial_[static_cast<std::size_t>(block)] = de;
  });
  double de = 0.0;
  for (double p : partial_) de += p;
  m.confinement.adjoints()[0] += de;
  // eta = central differences of |omega|; |omega| = sqrt(omega^2 + tiny).
  difference_adjoint(a_eta_x_.data(), a_eta_y_.data(), a_magnitude_.data(), a_magnitude_.data());
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      a_omega_[cs] = (a_omega_[cs] + a_magnitude_[cs] * omega_[cs] / magnitude_[cs]) * half_h;
      // omega = (dv/dx - du/dy): the y-part enters with a minus sign.
      a_magnitude_[cs] = -a_omega_[cs];
    }
  });
  difference_adjoint(a_omega_.data(), a_magnitude_.data(), a_cell_v_.data(), a_cell_u_.data());
  // Cell velocities are face means: each face takes half of each cell beside it.
  parallel_for_blocks(g.u_count(), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      const int i = static_cast<int>(f % g.u_columns()), j = static_cast<int>(f / g.u_columns());
      double s = 0.0;
      for (Index c : {g.u_left(i, j), g.u_right(i, j)})
        if (c >= 0) s += a_cell_u_[static_cast<std::size_t>(c)];
      du[static_cast<std::size_t>(f)] += 0.5 * s;
    }
  });
  parallel_for_blocks(g.v_count(), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      const int i = static_cast<int>(f % g.nx()), j = static_cast<int>(f / g.nx());
      double s = 0.0;
      for (Index c : {g.v_below(i, j), g.v_above(i, j)})
        if (c >= 0) s += a_cell_v_[static_cast<std::size_t>(c)];
      dv[static_cast<std::size_t>(f)] += 0.5 * s;
    }
  });
}

}  // namespace simgrad::fluid
