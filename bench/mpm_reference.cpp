#include "bench/mpm_reference.hpp"

#include <cmath>

namespace simgrad::app {

std::vector<double> reference_mpm_rollout(const mpm::MpmModel<2>& m, int steps) {
  const mpm::MpmSettings<2>& s = m.settings;
  const Index n = m.particle_count;
  const int nx = s.nodes[0], ny = s.nodes[1];
  const double dx = s.dx, inv_dx = 1.0 / dx, dt = s.dt;
  std::vector<double> x(m.initial_position.values().begin(), m.initial_position.values().end());
  std::vector<double> v(m.initial_velocity.values().begin(), m.initial_velocity.values().end());
  std::vector<double> c(static_cast<std::size_t>(4 * n), 0.0), f(static_cast<std::size_t>(4 * n), 0.0);
  for (Index p = 0; p < n; ++p) f[4 * p] = f[4 * p + 3] = 1.0;
  std::vector<double> gm(static_cast<std::size_t>(nx) * ny), gv(2 * gm.size());
  std::vector<double> mu(static_cast<std::size_t>(n)), lambda(static_cast<std::size_t>(n)), mass(static_cast<std::size_t>(n));
  for (Index p = 0; p < n; ++p) {
    const double e = m.youngs.values()[p], nu = m.poisson.values()[p];
    mu[p] = e / (2.0 * (1.0 + nu));
    lambda[p] = e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    mass[p] = m.density.values()[p] * m.volume.values()[p];
  }
  // Particle p's base node, offset from it and quadratic B-spline weights.
  auto weights = [&](Index p, int& bx, int& by, double fx[2], double w[2][3]) {
    bx = static_cast<int>(std::floor(x[2 * p] * inv_dx - 0.5));
    by = static_cast<int>(std::floor(x[2 * p + 1] * inv_dx - 0.5));
    fx[0] = x[2 * p] * inv_dx - bx;
    fx[1] = x[2 * p + 1] * inv_dx - by;
    for (int d = 0; d < 2; ++d) {
      w[d][0] = 0.5 * (1.5 - fx[d]) * (1.5 - fx[d]);
      w[d][1] = 0.75 - (fx[d] - 1.0) * (fx[d] - 1.0);
      w[d][2] = 0.5 * (fx[d] - 0.5) * (fx[d] - 0.5);
    }
  };
  for (int t = 0; t < steps; ++t) {
    std::fill(gm.begin(), gm.end(), 0.0);
    std::fill(gv.begin(), gv.end(), 0.0);
    for (Index p = 0; p < n; ++p) {
      int bx, by;
      double fx[2], w[2][3];
      weights(p, bx, by, fx, w);
      double* fp = &f[4 * p];
      const double* cp = &c[4 * p];
      const double a0 = 1.0 + dt * cp[0], a1 = dt * cp[1], a2 = dt * cp[2], a3 = 1.0 + dt * cp[3];
      const double g0 = a0 * fp[0] + a1 * fp[2], g1 = a0 * fp[1] + a1 * fp[3], g2 = a2 * fp[0] + a3 * fp[2], g3 = a2 * fp[1] + a3 * fp[3];
      fp[0] = g0, fp[1] = g1, fp[2] = g2, fp[3] = g3;
      const double j = g0 * g3 - g1 * g2;
      const double rc = g0 + g3, rs = g2 - g1, inv_r = 1.0 / std::sqrt(rc * rc + rs * rs);
      const double r0 = rc * inv_r, r1 = -rs * inv_r, r2 = rs * inv_r, r3 = rc * inv_r;
      // tau = 2 mu (F - R) F^T + lambda (J - 1) J I
      const double d0 = g0 - r0, d1 = g1 - r1, d2 = g2 - r2, d3 = g3 - r3;
      const double pressure = lambda[p] * (j - 1.0) * j;
      const double t0 = 2.0 * mu[p] * (d0 * g0 + d1 * g1) + pressure, t1 = 2.0 * mu[p] * (d0 * g2 + d1 * g3);
      const double t2 = 2.0 * mu[p] * (d2 * g0 + d3 * g1), t3 = 2.0 * mu[p] * (d2 * g2 + d3 * g3) + pressure;
      const double k = -dt * 4.0 * inv_dx * inv_dx * m.volume.values()[p];
      const double q0 = k * t0 + mass[p] * cp[0], q1 = k * t1 + mass[p] * cp[1], q2 = k * t2 + mass[p] * cp[2], q3 = k * t3 + mass[p] * cp[3];
      for (int i = 0; i < 3; ++i)
        for (int jj = 0; jj < 3; ++jj) {
          const double weight = w[0][i] * w[1][jj];
          const double px = (i - fx[0]) * dx, py = (jj - fx[1]) * dx;
          const std::size_t node = static_cast<std::size_t>(bx + i) + static_cast<std::size_t>(nx) * static_cast<std::size_t>(by + jj);
          gm[node] += weight * mass[p];
          gv[2 * node] += weight * (mass[p] * v[2 * p] + (q0 * px + q1 * py));
          gv[2 * node + 1] += weight * (mass[p] * v[2 * p + 1] + (q2 * px + q3 * py));
        }
    }
    for (int jy = 0; jy < ny; ++jy)
      for (int ix = 0; ix < nx; ++ix) {
        const std::size_t node = static_cast<std::size_t>(ix) + static_cast<std::size_t>(nx) * static_cast<std::size_t>(jy);
        if (!(gm[node] > 0.0)) {
          gv[2 * node] = gv[2 * node + 1] = 0.0;
          continue;
        }
        double vx = gv[2 * node] / gm[node] + dt * s.gravity[0], vy = gv[2 * node + 1] / gm[node] + dt * s.gravity[1];
        // Sticky walls: stop where moving in.
        if ((ix < s.bound && vx < 0.0) || (ix > nx - 1 - s.bound && vx > 0.0) || (jy < s.bound && vy < 0.0) || (jy > ny - 1 - s.bound && vy > 0.0))
          vx = vy = 0.0;
        gv[2 * node] = vx;
        gv[2 * node + 1] = vy;
      }
    for (Index p = 0; p < n; ++p) {
      int bx, by;
      double fx[2], w[2][3];
      weights(p, bx, by, fx, w);
      double nv[2] = {0.0, 0.0}, nc[4] = {0.0, 0.0, 0.0, 0.0};
      for (int i = 0; i < 3; ++i)
        for (int jj = 0; jj < 3; ++jj) {
          const double weight = w[0][i] * w[1][jj];
          const std::size_t node = static_cast<std::size_t>(bx + i) + static_cast<std::size_t>(nx) * static_cast<std::size_t>(by + jj);
          const double wx = weight * gv[2 * node], wy = weight * gv[2 * node + 1], ox = i - fx[0], oy = jj - fx[1];
          nv[0] += wx;
          nv[1] += wy;
          nc[0] += 4.0 * inv_dx * (wx * ox);
          nc[1] += 4.0 * inv_dx * (wx * oy);
          nc[2] += 4.0 * inv_dx * (wy * ox);
          nc[3] += 4.0 * inv_dx * (wy * oy);
        }
      v[2 * p] = nv[0];
      v[2 * p + 1] = nv[1];
      x[2 * p] += dt * nv[0];
      x[2 * p + 1] += dt * nv[1];
      for (int k = 0; k < 4; ++k) c[4 * p + k] = nc[k];
    }
  }
  std::vector<double> state;
  state.insert(state.end(), x.begin(), x.end());
  state.insert(state.end(), v.begin(), v.end());
  state.insert(state.end(), c.begin(), c.end());
  state.insert(state.end(), f.begin(), f.end());
  state.resize(state.size() + static_cast<std::size_t>(n), 0.0);
  return state;
}

}  // namespace simgrad::app
