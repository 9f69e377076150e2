#include "sims/fluid/confinement3d.hpp"

#include <cmath>

#include "core/parallel.hpp"

namespace simgrad::fluid {

namespace {

// Smooths |omega| and |eta| at zero: sqrt(x^2 + kTiny) is differentiable everywhere.
constexpr double kTiny = 1e-24;

// The axis after a, cyclically (the curl's and the cross product's index pattern).
constexpr std::size_t next(std::size_t a, std::size_t by = 1) { return (a + by) % 3; }

}  // namespace

Confinement3::Confinement3(const Grid3& grid) : grid_(&grid) {
  const std::size_t n = static_cast<std::size_t>(grid.cells());
  for (auto* set : {&cell_velocity_, &omega_, &normal_, &force_, &a_omega_, &a_eta_, &a_cell_})
    for (Field& f : *set) f.assign(n, 0.0);
  for (Field* f : {&magnitude_, &eta_norm_, &a_magnitude_}) f->assign(n, 0.0);
  partial_.assign(static_cast<std::size_t>(block_count(grid.cells())), 0.0);
}

Index Confinement3::low_neighbour(int a, const std::array<int, 3>& ijk) const {
  const Grid3& g = *grid_;
  std::array<int, 3> n = ijk;
  int& x = n[static_cast<std::size_t>(a)];
  x = x > 0 ? x - 1 : (g.periodic(a) ? g.n(a) - 1 : x);
  return g.cell(n[0], n[1], n[2]);
}

Index Confinement3::high_neighbour(int a, const std::array<int, 3>& ijk) const {
  const Grid3& g = *grid_;
  std::array<int, 3> n = ijk;
  int& x = n[static_cast<std::size_t>(a)];
  x = x + 1 < g.n(a) ? x + 1 : (g.periodic(a) ? 0 : x);
  return g.cell(n[0], n[1], n[2]);
}

void Confinement3::compute(const ConstVelocity3& velocity) {
  const Grid3& g = *grid_;
  const Lattice3 cl = g.cell_lattice();
  const double half_h = 0.5 / g.h();
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const std::array<int, 3> ijk = cl.coordinates(c);
      for (int a = 0; a < 3; ++a) {
        const std::span<const double> q = velocity[static_cast<std::size_t>(a)];
        cell_velocity_[static_cast<std::size_t>(a)][static_cast<std::size_t>(c)] =
            0.5 * (q[static_cast<std::size_t>(g.low_face(a, ijk))] + q[static_cast<std::size_t>(g.high_face(a, ijk))]);
      }
    }
  });
  // omega_b = D_{b+1} U_{b+2} - D_{b+2} U_{b+1}.
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const std::array<int, 3> ijk = cl.coordinates(c);
      const std::size_t cs = static_cast<std::size_t>(c);
      double squares = 0.0;
      for (std::size_t b = 0; b < 3; ++b) {
        const int b1 = static_cast<int>(next(b)), b2 = static_cast<int>(next(b, 2));
        const Field& u1 = cell_velocity_[next(b)];
        const Field& u2 = cell_velocity_[next(b, 2)];
        const double w = (u2[static_cast<std::size_t>(high_neighbour(b1, ijk))] - u2[static_cast<std::size_t>(low_neighbour(b1, ijk))] -
                          u1[static_cast<std::size_t>(high_neighbour(b2, ijk))] + u1[static_cast<std::size_t>(low_neighbour(b2, ijk))]) *
                         half_h;
        omega_[b][cs] = w;
        squares += w * w;
      }
      magnitude_[cs] = std::sqrt(squares + kTiny);
    }
  });
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const std::array<int, 3> ijk = cl.coordinates(c);
      const std::size_t cs = static_cast<std::size_t>(c);
      double eta[3], squares = 0.0;
      for (int a = 0; a < 3; ++a) {
        eta[a] = (magnitude_[static_cast<std::size_t>(high_neighbour(a, ijk))] -
                  magnitude_[static_cast<std::size_t>(low_neighbour(a, ijk))]) *
                 half_h;
        squares += eta[a] * eta[a];
      }
      eta_norm_[cs] = std::sqrt(squares + kTiny);
      for (std::size_t a = 0; a < 3; ++a) normal_[a][cs] = eta[a] / eta_norm_[cs];
    }
  });
}

void Confinement3::apply(const SmokeModel3& m, const Velocity3& velocity) {
  const Grid3& g = *grid_;
  compute({velocity[0], velocity[1], velocity[2]});
  const double scale = m.confinement.values()[0] * g.h(), dt = m.settings.dt;
  // f_b = epsilon h (N_{b+1} omega_{b+2} - N_{b+2} omega_{b+1}).
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      const bool fluid = !g.solid(c);
      for (std::size_t b = 0; b < 3; ++b)
        force_[b][cs] = fluid ? scale * (normal_[next(b)][cs] * omega_[next(b, 2)][cs] -
                                         normal_[next(b, 2)][cs] * omega_[next(b)][cs])
                              : 0.0;
    }
  });
  // A face takes the mean force of the cells beside it (one beside an open side).
  for (int a = 0; a < 3; ++a) {
    const Lattice3 fl = g.face_lattice(a);
    const std::span<double> q = velocity[static_cast<std::size_t>(a)];
    const Field& f = force_[static_cast<std::size_t>(a)];
    parallel_for_blocks(fl.size(), [&](Index first, Index last) {
      for (Index k = first; k < last; ++k) {
        if (g.wall(a, k)) continue;
        const std::array<int, 3> ijk = fl.coordinates(k);
        const Index lo = g.lower_cell(a, ijk), up = g.upper_cell(a, ijk);
        const int n = (lo >= 0) + (up >= 0);
        const double sum = (lo >= 0 ? f[static_cast<std::size_t>(lo)] : 0.0) + (up >= 0 ? f[static_cast<std::size_t>(up)] : 0.0);
        q[static_cast<std::size_t>(k)] += dt * sum / n;
      }
    });
  }
}

void Confinement3::add_difference_transpose(int a, double sign, const Field& x, Field& out) const {
  const Grid3& g = *grid_;
  const Lattice3 cl = g.cell_lattice();
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index n = first; n < last; ++n) {
      // The cells that can name n as a neighbour along a: n itself (at a side) and its two
      // neighbours along a.
      const std::array<int, 3> ijk = cl.coordinates(n);
      const Index candidates[3] = {n, low_neighbour(a, ijk), high_neighbour(a, ijk)};
      double s = 0.0;
      for (int k = 0; k < 3; ++k) {
        const Index c = candidates[k];
        bool seen = false;
        for (int p = 0; p < k; ++p) seen = seen || candidates[p] == c;
        if (seen) continue;
        const std::array<int, 3> cijk = cl.coordinates(c);
        const double xc = x[static_cast<std::size_t>(c)];
        if (high_neighbour(a, cijk) == n) s += xc;
        if (low_neighbour(a, cijk) == n) s -= xc;
      }
      out[static_cast<std::size_t>(n)] += sign * s;
    }
  });
}

void Confinement3::apply_adjoint(SmokeModel3& m, const ConstVelocity3& velocity, const Velocity3& adjoint) {
  const Grid3& g = *grid_;
  const Lattice3 cl = g.cell_lattice();
  compute(velocity);
  const double epsilon = m.confinement.values()[0], h = g.h(), dt = m.settings.dt, half_h = 0.5 / h;
  // The forces' adjoints F (a gather of the faces beside each cell), epsilon's per block, and the
  // adjoints of omega (direct part: epsilon h F x N) and of eta (through N: epsilon h omega x F).
  parallel_for_indexed_blocks(g.cells(), [&](Index block, Index first, Index last) {
    double de = 0.0;
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      for (std::size_t b = 0; b < 3; ++b) a_omega_[b][cs] = a_eta_[b][cs] = 0.0;
      if (g.solid(c)) continue;
      const std::array<int, 3> ijk = cl.coordinates(c);
      double force[3], normal[3], w[3];
      for (int a = 0; a < 3; ++a) {
        const std::size_t as = static_cast<std::size_t>(a);
        const Lattice3 fl = g.face_lattice(a);
        force[a] = 0.0;
        for (Index f : {g.low_face(a, ijk), g.high_face(a, ijk)}) {
          if (g.wall(a, f)) continue;
          const std::array<int, 3> fijk = fl.coordinates(f);
          const int n = (g.lower_cell(a, fijk) >= 0) + (g.upper_cell(a, fijk) >= 0);
          force[a] += dt * adjoint[as][static_cast<std::size_t>(f)] / n;
        }
        normal[a] = normal_[as][cs];
        w[a] = omega_[as][cs];
      }
      double a_normal[3], along = 0.0;
      for (std::size_t b = 0; b < 3; ++b) {
        const std::size_t b1 = next(b), b2 = next(b, 2);
        de += h * force[b] * (normal[b1] * w[b2] - normal[b2] * w[b1]);
        a_omega_[b][cs] = epsilon * h * (force[b1] * normal[b2] - force[b2] * normal[b1]);
        a_normal[b] = epsilon * h * (w[b1] * force[b2] - w[b2] * force[b1]);
        along += normal[b] * a_normal[b];
      }
      // N = eta / |eta|: a_eta = (a_N - N (N . a_N)) / |eta|; the 1 / (2h) of the difference here.
      for (std::size_t b = 0; b < 3; ++b) a_eta_[b][cs] = (a_normal[b] - normal[b] * along) / eta_norm_[cs] * half_h;
    }
    partial_[static_cast<std::size_t>(block)] = de;
  });
  double de = 0.0;
  for (double p : partial_) de += p;
  m.confinement.adjoints()[0] += de;
  // eta_a = D_a |omega|; |omega| = sqrt(|omega|^2 + tiny).
  std::fill(a_magnitude_.begin(), a_magnitude_.end(), 0.0);
  for (int a = 0; a < 3; ++a) add_difference_transpose(a, 1.0, a_eta_[static_cast<std::size_t>(a)], a_magnitude_);
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      for (std::size_t b = 0; b < 3; ++b)
        a_omega_[b][cs] = (a_omega_[b][cs] + a_magnitude_[cs] * omega_[b][cs] / magnitude_[cs]) * half_h;
    }
  });
  // omega_b = D_{b+1} U_{b+2} - D_{b+2} U_{b+1}: U_c gets D_{c+2}^T a_omega_{c+1} - D_{c+1}^T a_omega_{c+2}.
  for (std::size_t c = 0; c < 3; ++c) {
    std::fill(a_cell_[c].begin(), a_cell_[c].end(), 0.0);
    add_difference_transpose(static_cast<int>(next(c, 2)), 1.0, a_omega_[next(c)], a_cell_[c]);
    add_difference_transpose(static_cast<int>(next(c)), -1.0, a_omega_[next(c, 2)], a_cell_[c]);
  }
  // Cell velocities are face means: each face takes half of each cell beside it.
  for (int a = 0; a < 3; ++a) {
    const std::size_t as = static_cast<std::size_t>(a);
    const Lattice3 fl = g.face_lattice(a);
    const std::span<double> d = adjoint[as];
    parallel_for_blocks(fl.size(), [&](Index first, Index last) {
      for (Index k = first; k < last; ++k) {
        const std::array<int, 3> ijk = fl.coordinates(k);
        double s = 0.0;
        for (Index c : {g.lower_cell(a, ijk), g.upper_cell(a, ijk)})
          if (c >= 0) s += a_cell_[as][static_cast<std::size_t>(c)];
        d[static_cast<std::size_t>(k)] += 0.5 * s;
      }
    });
  }
}

}  // namespace simgrad::fluid
