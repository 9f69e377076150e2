#include "sims/fluid/forcing3d.hpp"

#include <cmath>

#include "core/parallel.hpp"
#include "sims/fluid/source_footprint.hpp"

namespace simgrad::fluid {

namespace {

// Beyond this many squared radii a footprint (exp(-700) ~ 1e-304) counts as zero, forward and
// adjoint alike, so the sums skip the far samples.
constexpr double kFootprintCutoff = 700.0;

// A source's footprint g = exp(-|x - c|^2 / r^2) at sample k of lattice l, its derivatives with
// respect to the centre and the radius; g = 0 beyond the cut-off.
struct Footprint3 {
  double g = 0.0;
  double dc[3] = {0.0, 0.0, 0.0};
  double dr = 0.0;
};

// A source's centre, radius and driven velocity at a step, with the knots that made them.
struct Source3 {
  std::array<double, 3> centre;
  double r, speed, angle, tilt;
  int knot[3];
  double fraction[3];
  std::array<double, 3> target;
};

// Source s's values at step t.
Source3 source_at(const SmokeModel3& m, int s, int t) {
  Source3 v{};
  const std::size_t i = static_cast<std::size_t>(s);
  v.centre = {m.source_x.values()[i], m.source_y.values()[i], m.source_z.values()[i]};
  v.r = m.source_radius.values()[i];
  v.speed = m.scheduled(m.speed, s, t, v.knot[0], v.fraction[0]);
  v.angle = m.scheduled(m.angle, s, t, v.knot[1], v.fraction[1]);
  v.tilt = m.scheduled(m.tilt, s, t, v.knot[2], v.fraction[2]);
  v.target = {v.speed * std::cos(v.tilt) * std::cos(v.angle), v.speed * std::cos(v.tilt) * std::sin(v.angle),
              v.speed * std::sin(v.tilt)};
  return v;
}

// Source s's footprint at sample k of lattice l.
Footprint3 footprint_at(const Grid3& g, const Lattice3& l, Index k, const Source3& s) {
  const std::array<int, 3> ijk = l.coordinates(k);
  double d[3], dd[3], d2 = 0.0;
  for (std::size_t a = 0; a < 3; ++a) {
    axis_offset((ijk[a] + l.offset[a]) * g.h() - s.centre[a], g.periodic(static_cast<int>(a)),
                g.extent(static_cast<int>(a)), d[a], dd[a]);
    d2 += d[a] * d[a];
  }
  Footprint3 f;
  const double r2 = s.r * s.r;
  if (d2 > kFootprintCutoff * r2) return f;
  f.g = std::exp(-d2 / r2);
  for (int a = 0; a < 3; ++a) f.dc[a] = -f.g * 2.0 * d[a] * dd[a] / r2;
  f.dr = f.g * 2.0 * d2 / (r2 * s.r);
  return f;
}

}  // namespace

void apply_source(const SmokeModel3& m, int s, int t, const Fields3View& f) {
  const Grid3& g = m.grid;
  const Source3 src = source_at(m, s, t);
  const double rate_d = m.settings.dt * m.density_rate.values()[static_cast<std::size_t>(s)];
  const double rate_t = m.settings.dt * m.temperature_rate.values()[static_cast<std::size_t>(s)];
  const Lattice3 cl = g.cell_lattice();
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      if (g.solid(c)) continue;
      const double w = footprint_at(g, cl, c, src).g;
      f.density[static_cast<std::size_t>(c)] += rate_d * w;
      f.temperature[static_cast<std::size_t>(c)] += rate_t * w;
    }
  });
  for (int a = 0; a < 3; ++a) {
    const Lattice3 fl = g.face_lattice(a);
    const std::span<double> q = f.velocity[static_cast<std::size_t>(a)];
    const double target = src.target[static_cast<std::size_t>(a)];
    parallel_for_blocks(fl.size(), [&](Index first, Index last) {
      for (Index k = first; k < last; ++k) {
        if (g.wall(a, k)) continue;
        const double w = footprint_at(g, fl, k, src).g;
        q[static_cast<std::size_t>(k)] += w * (target - q[static_cast<std::size_t>(k)]);
      }
    });
  }
}

void apply_source_adjoint(SmokeModel3& m, int s, int t, const ConstVelocity3& before, const Fields3View& a) {
  const Grid3& g = m.grid;
  const std::size_t si = static_cast<std::size_t>(s);
  const Source3 src = source_at(m, s, t);
  const double dt = m.settings.dt;
  const double rate_d = dt * m.density_rate.values()[si], rate_t = dt * m.temperature_rate.values()[si];
  double dc[3] = {0.0, 0.0, 0.0}, dr = 0.0, d_rate_d = 0.0, d_rate_t = 0.0, dtarget[3] = {0.0, 0.0, 0.0};
  // The footprint's adjoint: d(out)/dg times dg/d(centre, radius).
  auto add_footprint = [&](const Footprint3& fp, double dg) {
    for (int b = 0; b < 3; ++b) dc[b] += dg * fp.dc[b];
    dr += dg * fp.dr;
  };
  const Lattice3 cl = g.cell_lattice();
  for (Index c = 0; c < g.cells(); ++c) {
    if (g.solid(c)) continue;
    const Footprint3 fp = footprint_at(g, cl, c, src);
    if (fp.g == 0.0) continue;
    const double ad = a.density[static_cast<std::size_t>(c)], at = a.temperature[static_cast<std::size_t>(c)];
    d_rate_d += dt * fp.g * ad;
    d_rate_t += dt * fp.g * at;
    add_footprint(fp, rate_d * ad + rate_t * at);
  }
  // A velocity component: out = in + g (target - in).
  for (int b = 0; b < 3; ++b) {
    const std::size_t bs = static_cast<std::size_t>(b);
    const Lattice3 fl = g.face_lattice(b);
    const std::span<double> av = a.velocity[bs];
    for (Index k = 0; k < fl.size(); ++k) {
      if (g.wall(b, k)) continue;
      const std::size_t ks = static_cast<std::size_t>(k);
      const Footprint3 fp = footprint_at(g, fl, k, src);
      if (fp.g == 0.0) continue;
      dtarget[bs] += fp.g * av[ks];
      add_footprint(fp, (src.target[bs] - before[bs][ks]) * av[ks]);
      av[ks] = (1.0 - fp.g) * av[ks];
    }
  }
  m.source_x.adjoints()[si] += dc[0];
  m.source_y.adjoints()[si] += dc[1];
  m.source_z.adjoints()[si] += dc[2];
  m.source_radius.adjoints()[si] += dr;
  m.density_rate.adjoints()[si] += d_rate_d;
  m.temperature_rate.adjoints()[si] += d_rate_t;
  // target = speed (cos tilt cos angle, cos tilt sin angle, sin tilt).
  const double ca = std::cos(src.angle), sa = std::sin(src.angle), ct = std::cos(src.tilt), st = std::sin(src.tilt);
  const double dspeed = dtarget[0] * ct * ca + dtarget[1] * ct * sa + dtarget[2] * st;
  const double dangle = src.speed * ct * (-dtarget[0] * sa + dtarget[1] * ca);
  const double dtilt = src.speed * (-st * (dtarget[0] * ca + dtarget[1] * sa) + ct * dtarget[2]);
  add_to_knots(m.speed, m, s, src.knot[0], src.fraction[0], dspeed);
  add_to_knots(m.angle, m, s, src.knot[1], src.fraction[1], dangle);
  add_to_knots(m.tilt, m, s, src.knot[2], src.fraction[2], dtilt);
}

void apply_buoyancy(const SmokeModel3& m, const Fields3View& f) {
  const Grid3& g = m.grid;
  const double ca = m.settings.dt * m.settings.buoyancy, cb = m.settings.dt * m.settings.weight;
  if (ca == 0.0 && cb == 0.0) return;
  const Lattice3 fl = g.face_lattice(1);
  const std::span<double> v = f.velocity[1];
  parallel_for_blocks(fl.size(), [&](Index first, Index last) {
    for (Index k = first; k < last; ++k) {
      if (g.wall(1, k)) continue;
      const std::array<int, 3> ijk = fl.coordinates(k);
      double force = 0.0;
      int n = 0;
      for (Index c : {g.lower_cell(1, ijk), g.upper_cell(1, ijk)}) {
        if (c < 0) continue;
        force += ca * f.temperature[static_cast<std::size_t>(c)] - cb * f.density[static_cast<std::size_t>(c)];
        ++n;
      }
      v[static_cast<std::size_t>(k)] += force / n;
    }
  });
}

void apply_buoyancy_adjoint(const SmokeModel3& m, const Fields3View& a) {
  const Grid3& g = m.grid;
  const double ca = m.settings.dt * m.settings.buoyancy, cb = m.settings.dt * m.settings.weight;
  if (ca == 0.0 && cb == 0.0) return;
  const Lattice3 cl = g.cell_lattice(), fl = g.face_lattice(1);
  const std::span<const double> av = a.velocity[1];
  // A gather: each cell collects from its lower and upper y-faces, each face's adjoint shared
  // among the cells it averaged.
  auto share = [&](Index f) {
    if (g.wall(1, f)) return 0.0;
    const std::array<int, 3> ijk = fl.coordinates(f);
    const int n = (g.lower_cell(1, ijk) >= 0) + (g.upper_cell(1, ijk) >= 0);
    return av[static_cast<std::size_t>(f)] / n;
  };
  parallel_for_blocks(g.cells(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const std::array<int, 3> ijk = cl.coordinates(c);
      const double s = share(g.low_face(1, ijk)) + share(g.high_face(1, ijk));
      a.temperature[static_cast<std::size_t>(c)] += ca * s;
      a.density[static_cast<std::size_t>(c)] -= cb * s;
    }
  });
}

namespace {

// q += c L x on the samples of lattice l where skip(k) is false (L: 7-point graph Laplacian,
// neighbours outside a non-periodic domain left out, so L is symmetric).
template <class Skip>
void add_laplacian(const Lattice3& l, double c, std::span<const double> x, std::span<double> q, const Skip& skip) {
  parallel_for_blocks(l.size(), [&](Index first, Index last) {
    for (Index k = first; k < last; ++k) {
      if (skip(k)) continue;
      const std::array<int, 3> ijk = l.coordinates(k);
      const double xk = x[static_cast<std::size_t>(k)];
      double lap = 0.0;
      for (std::size_t a = 0; a < 3; ++a)
        for (int step : {-1, 1}) {
          std::array<int, 3> n = ijk;
          n[a] += step;
          if (n[a] < 0 || n[a] >= l.count[a]) {
            if (!l.wrap[a]) continue;
            n[a] = (n[a] + l.count[a]) % l.count[a];
          }
          lap += x[static_cast<std::size_t>(l.index(n[0], n[1], n[2]))] - xk;
        }
      q[static_cast<std::size_t>(k)] += c * lap;
    }
  });
}

// All components, forward (q' = q + c M L q, M masking walls) or adjoint (a' = a + c L M a).
void viscosity_pass(const SmokeModel3& m, const Velocity3& velocity, std::span<double> scratch, bool adjoint) {
  const Grid3& g = m.grid;
  if (m.settings.viscosity == 0.0) return;
  const double c = m.settings.dt * m.settings.viscosity / (g.h() * g.h());
  for (int a = 0; a < 3; ++a) {
    const Lattice3 l = g.face_lattice(a);
    const std::span<double> q = velocity[static_cast<std::size_t>(a)];
    for (Index k = 0; k < l.size(); ++k)
      scratch[static_cast<std::size_t>(k)] = adjoint && g.wall(a, k) ? 0.0 : q[static_cast<std::size_t>(k)];
    const std::span<const double> x = scratch.subspan(0, static_cast<std::size_t>(l.size()));
    if (adjoint) add_laplacian(l, c, x, q, [](Index) { return false; });
    else add_laplacian(l, c, x, q, [&](Index k) { return g.wall(a, k); });
  }
}

}  // namespace

void apply_viscosity(const SmokeModel3& m, const Velocity3& velocity, std::span<double> scratch) {
  viscosity_pass(m, velocity, scratch, false);
}

void apply_viscosity_adjoint(const SmokeModel3& m, const Velocity3& adjoint, std::span<double> scratch) {
  viscosity_pass(m, adjoint, scratch, true);
}

void zero_walls(const Grid3& g, const Velocity3& velocity) {
  for (int a = 0; a < 3; ++a)
    for (Index k = 0, n = g.face_count(a); k < n; ++k)
      if (g.wall(a, k)) velocity[static_cast<std::size_t>(a)][static_cast<std::size_t>(k)] = 0.0;
}

}  // namespace simgrad::fluid
