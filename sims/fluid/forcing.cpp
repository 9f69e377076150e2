#include "sims/fluid/forcing.hpp"

#include <cmath>
#include <numbers>
#include <vector>

#include "core/parallel.hpp"
#include "sims/fluid/source_footprint.hpp"

namespace simgrad::fluid {

namespace {

// A source's footprint at sample k of lattice l: g = exp(-|x - c|^2 / r^2) and its derivatives
// with respect to the centre and the radius; offsets along periodic axes as axis_offset says.
struct Footprint {
  double g, dcx, dcy, dr;
};

Footprint footprint_at(const Grid& grid, const Lattice& l, Index k, double cx, double cy, double r) {
  const double h = grid.h();
  double dx, dy, ddx, ddy;
  axis_offset((static_cast<double>(k % l.cx) + l.ox) * h - cx, grid.periodic_x(), grid.width(), dx, ddx);
  axis_offset((static_cast<double>(k / l.cx) + l.oy) * h - cy, grid.periodic_y(), grid.height(), dy, ddy);
  const double d2 = dx * dx + dy * dy;
  const double g = std::exp(-d2 / (r * r));
  return {g, -g * 2.0 * dx * ddx / (r * r), -g * 2.0 * dy * ddy / (r * r), g * 2.0 * d2 / (r * r * r)};
}

struct SourceValues {
  double cx, cy, r, speed, angle;
  int speed_knot, angle_knot;
  double speed_fraction, angle_fraction;
};

SourceValues source_values(const SmokeModel& m, int s, int t) {
  SourceValues sv{};
  const std::size_t i = static_cast<std::size_t>(s);
  sv.cx = m.source_x.values()[i];
  sv.cy = m.source_y.values()[i];
  sv.r = m.source_radius.values()[i];
  sv.speed = m.scheduled(m.speed, s, t, sv.speed_knot, sv.speed_fraction);
  sv.angle = m.scheduled(m.angle, s, t, sv.angle_knot, sv.angle_fraction);
  return sv;
}

// The samples [first, last) of this process's rows of lattice l (all of them on a whole grid).
std::pair<Index, Index> own_samples(const Lattice& l, const RowSlabs* slabs) {
  const RowRun rows = rows_here(slabs, l.cy);
  return {static_cast<Index>(rows.first) * l.cx, static_cast<Index>(rows.last) * l.cx};
}


// body(first, last) over blocks of the samples of lattice l in this process's rows (all of them
// on a whole grid).
template <class Body>
void for_own_samples(const Lattice& l, const RowSlabs* slabs, const Body& body) {
  const std::pair<Index, Index> samples = own_samples(l, slabs);
  const Index begin = samples.first;
  parallel_for_blocks(samples.second - begin, [&](Index first, Index last) { body(begin + first, begin + last); });
}

// The blocks [first, last) of lattice l's samples (of kBlockSize, numbered from the first
// sample) whose first sample is in this process's rows: a source's sums run per block, and
// each block on the process holding its first sample.
std::pair<Index, Index> own_blocks(const Lattice& l, const RowSlabs* slabs) {
  const auto [begin, end] = own_samples(l, slabs);
  return {block_count(begin), block_count(end)};
}

}  // namespace

void apply_source(const SmokeModel& m, int s, int t, FieldsView f, const RowSlabs* slabs) {
  const Grid& g = m.grid;
  const SourceValues sv = source_values(m, s, t);
  const double rate_d = m.settings.dt * m.density_rate.values()[static_cast<std::size_t>(s)];
  const double rate_t = m.settings.dt * m.temperature_rate.values()[static_cast<std::size_t>(s)];
  const double tx = sv.speed * std::cos(sv.angle), ty = sv.speed * std::sin(sv.angle);
  const Lattice cl = g.cell_lattice(), ul = g.u_lattice(), vl = g.v_lattice();
  for_own_samples(cl, slabs, [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      if (g.solid(c)) continue;
      const double w = footprint_at(g, cl, c, sv.cx, sv.cy, sv.r).g;
      f.density[static_cast<std::size_t>(c)] += rate_d * w;
      f.temperature[static_cast<std::size_t>(c)] += rate_t * w;
    }
  });
  auto pull = [&](const Lattice& l, auto is_wall, std::span<double> q, double target) {
    for_own_samples(l, slabs, [&](Index first, Index last) {
      for (Index k = first; k < last; ++k) {
        if (is_wall(k)) continue;
        const double w = footprint_at(g, l, k, sv.cx, sv.cy, sv.r).g;
        q[static_cast<std::size_t>(k)] += w * (target - q[static_cast<std::size_t>(k)]);
      }
    });
  };
  pull(ul, [&](Index k) { return g.u_wall(k); }, f.velocity[0], tx);
  pull(vl, [&](Index k) { return g.v_wall(k); }, f.velocity[1], ty);
}

int source_block_rows(const Grid& g) { return static_cast<int>(kBlockSize / g.nx()) + 1; }

std::size_t source_adjoint_scratch(const Grid& g) {
  return static_cast<std::size_t>((block_count(g.cells()) + block_count(g.u_count()) + block_count(g.v_count())) * 7);
}

void apply_source_adjoint(SmokeModel& m, int s, int t, const ConstVelocity<2>& before, FieldsView a,
                          std::span<double> scratch, const RowSlabs* slabs) {
  const Grid& g = m.grid;
  const std::size_t si = static_cast<std::size_t>(s);
  const SourceValues sv = source_values(m, s, t);
  const double dt = m.settings.dt;
  const double rate_d = dt * m.density_rate.values()[si], rate_t = dt * m.temperature_rate.values()[si];
  const double cs = std::cos(sv.angle), sn = std::sin(sv.angle);
  const double tx = sv.speed * cs, ty = sv.speed * sn;
  const Lattice cl = g.cell_lattice(), ul = g.u_lattice(), vl = g.v_lattice();
  // Sums into the parameters, per block of each loop (kSums = 7 entries each), then block by
  // block in order: the same bits for any thread count.
  enum { kCx, kCy, kR, kRateD, kRateT, kTx, kTy, kSums };
  const Index cell_blocks = block_count(g.cells()), u_blocks = block_count(g.u_count());
  const std::size_t needed = source_adjoint_scratch(g);
  std::vector<double> own;
  if (scratch.size() < needed) {
    own.resize(needed);
    scratch = own;
  }
  std::fill_n(scratch.begin(), needed, 0.0);
  // The footprint's adjoint: sum of d(out)/dg times dg/d(centre, radius).
  auto add_footprint = [](double* sums, const Footprint& fp, double dg) {
    sums[kCx] += dg * fp.dcx;
    sums[kCy] += dg * fp.dcy;
    sums[kR] += dg * fp.dr;
  };
  // The blocks of a lattice this process sums (all of them on a whole grid), in parallel.
  auto for_own_blocks = [&](const Lattice& l, const auto& body) {
    const std::pair<Index, Index> blocks = own_blocks(l, slabs);
    const Index begin = blocks.first;
    const Index offset = begin * kBlockSize, samples = std::min(static_cast<Index>(l.cx) * l.cy, blocks.second * kBlockSize);
    parallel_for_indexed_blocks(std::max<Index>(0, samples - offset), [&](Index block, Index first, Index last) {
      body(begin + block, offset + first, offset + last);
    });
  };
  for_own_blocks(cl, [&](Index block, Index first, Index last) {
    double* sums = scratch.data() + block * kSums;
    for (Index c = first; c < last; ++c) {
      if (g.solid(c)) continue;
      const Footprint fp = footprint_at(g, cl, c, sv.cx, sv.cy, sv.r);
      const double ad = a.density[static_cast<std::size_t>(c)], at = a.temperature[static_cast<std::size_t>(c)];
      sums[kRateD] += dt * fp.g * ad;
      sums[kRateT] += dt * fp.g * at;
      add_footprint(sums, fp, rate_d * ad + rate_t * at);
    }
  });
  // A velocity component: out = in + g (target - in); the sums read each sample's adjoint before
  // its own update, so they run apart from it (a block's samples past the slab are another
  // process's to update).
  auto velocity_part = [&](const Lattice& l, auto is_wall, std::span<double> av, std::span<const double> before,
                           double target, int target_sum, Index first_block) {
    for_own_blocks(l, [&](Index block, Index first, Index last) {
      double* sums = scratch.data() + (first_block + block) * kSums;
      for (Index k = first; k < last; ++k) {
        if (is_wall(k)) continue;
        const std::size_t ks = static_cast<std::size_t>(k);
        const Footprint fp = footprint_at(g, l, k, sv.cx, sv.cy, sv.r);
        sums[target_sum] += fp.g * av[ks];
        add_footprint(sums, fp, (target - before[ks]) * av[ks]);
        if (!slabs) av[ks] *= 1.0 - fp.g;
      }
    });
    if (slabs)
      for_own_samples(l, slabs, [&](Index first, Index last) {
        for (Index k = first; k < last; ++k)
          if (!is_wall(k)) av[static_cast<std::size_t>(k)] *= 1.0 - footprint_at(g, l, k, sv.cx, sv.cy, sv.r).g;
      });
  };
  velocity_part(ul, [&](Index k) { return g.u_wall(k); }, a.velocity[0], before[0], tx, kTx, cell_blocks);
  velocity_part(vl, [&](Index k) { return g.v_wall(k); }, a.velocity[1], before[1], ty, kTy, cell_blocks + u_blocks);
  // Split, every block's sums, in block order (each lattice's blocks lie in process order).
  if (slabs) {
    std::vector<double> gathered;  // once a source and step, split only
    const Index first_blocks[3] = {0, cell_blocks, cell_blocks + u_blocks};
    const Lattice* lattices[3] = {&cl, &ul, &vl};
    for (int k = 0; k < 3; ++k) {
      const auto [begin, end] = own_blocks(*lattices[k], slabs);
      const std::size_t at = static_cast<std::size_t>((first_blocks[k] + begin) * kSums);
      slabs->gather_all(std::span<const double>(scratch).subspan(at, static_cast<std::size_t>((end - begin) * kSums)), gathered);
      std::copy(gathered.begin(), gathered.end(), scratch.begin() + static_cast<std::ptrdiff_t>(first_blocks[k] * kSums));
    }
  }
  double total[kSums] = {};
  for (std::size_t b = 0; b < needed / kSums; ++b)
    for (int q = 0; q < kSums; ++q) total[q] += scratch[b * kSums + static_cast<std::size_t>(q)];
  m.source_x.adjoints()[si] += total[kCx];
  m.source_y.adjoints()[si] += total[kCy];
  m.source_radius.adjoints()[si] += total[kR];
  m.density_rate.adjoints()[si] += total[kRateD];
  m.temperature_rate.adjoints()[si] += total[kRateT];
  add_to_knots(m.speed, m, s, sv.speed_knot, sv.speed_fraction, total[kTx] * cs + total[kTy] * sn);
  add_to_knots(m.angle, m, s, sv.angle_knot, sv.angle_fraction, sv.speed * (-total[kTx] * sn + total[kTy] * cs));
}

namespace {

// The cells below and above y-face k, each -1 outside the domain.
void cells_of_v_face(const Grid& g, Index k, Index& below, Index& above) {
  const int i = static_cast<int>(k % g.nx()), j = static_cast<int>(k / g.nx());
  below = g.v_below(i, j);
  above = g.v_above(i, j);
}

}  // namespace

void apply_buoyancy(const SmokeModel& m, FieldsView f, const RowSlabs* slabs) {
  const Grid& g = m.grid;
  const double a = m.settings.dt * m.settings.buoyancy, b = m.settings.dt * m.settings.weight;
  if (a == 0.0 && b == 0.0) return;
  if (slabs) {  // a y-face averages the cells below and above it
    slabs->fill_halo(f.temperature, g.nx(), 1, 0, g.periodic_y());
    slabs->fill_halo(f.density, g.nx(), 1, 0, g.periodic_y());
  }
  for_own_samples(g.v_lattice(), slabs, [&](Index first, Index last) {
    for (Index k = first; k < last; ++k) {
      if (g.v_wall(k)) continue;
      Index below, above;
      cells_of_v_face(g, k, below, above);
      double force = 0.0;
      int n = 0;
      for (Index c : {below, above}) {
        if (c < 0) continue;
        force += a * f.temperature[static_cast<std::size_t>(c)] - b * f.density[static_cast<std::size_t>(c)];
        ++n;
      }
      f.velocity[1][static_cast<std::size_t>(k)] += force / n;
    }
  });
}

void apply_buoyancy_adjoint(const SmokeModel& m, FieldsView a, const RowSlabs* slabs) {
  const Grid& g = m.grid;
  const double ca = m.settings.dt * m.settings.buoyancy, cb = m.settings.dt * m.settings.weight;
  if (ca == 0.0 && cb == 0.0) return;
  if (slabs) slabs->fill_halo(a.velocity[1], g.nx(), 0, 1, g.periodic_y());  // a cell's top face
  // A gather over the cells: each takes its share of the faces below and above it.
  for_own_samples(g.cell_lattice(), slabs, [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const int i = static_cast<int>(c % g.nx()), j = static_cast<int>(c / g.nx());
      for (Index k : {g.v_face(i, j), g.top_face(i, j)}) {
        if (g.v_wall(k)) continue;
        Index below, above;
        cells_of_v_face(g, k, below, above);
        const double av = a.velocity[1][static_cast<std::size_t>(k)] / ((below >= 0) + (above >= 0));
        a.temperature[static_cast<std::size_t>(c)] += ca * av;
        a.density[static_cast<std::size_t>(c)] -= cb * av;
      }
    }
  });
}

namespace {

// q += c L x on the samples of lattice l where skip(k) is false (L: 5-point graph Laplacian,
// neighbours outside a non-periodic domain left out, so L is symmetric).
template <class Skip>
void add_laplacian(const Lattice& l, double c, std::span<const double> x, std::span<double> q, const Skip& skip,
                   const RowSlabs* slabs) {
  for_own_samples(l, slabs, [&](Index first, Index last) {
    for (Index k = first; k < last; ++k) {
      if (skip(k)) continue;
      const int i = static_cast<int>(k % l.cx), j = static_cast<int>(k / l.cx);
      const double xk = x[static_cast<std::size_t>(k)];
      double lap = 0.0;
      auto add = [&](int ii, int jj) {
        if (ii < 0 || ii >= l.cx) {
          if (!l.wrap_x) return;
          ii = (ii + l.cx) % l.cx;
        }
        if (jj < 0 || jj >= l.cy) {
          if (!l.wrap_y) return;
          jj = (jj + l.cy) % l.cy;
        }
        lap += x[static_cast<std::size_t>(static_cast<Index>(jj) * l.cx + ii)] - xk;
      };
      add(i - 1, j);
      add(i + 1, j);
      add(i, j - 1);
      add(i, j + 1);
      q[static_cast<std::size_t>(k)] += c * lap;
    }
  });
}

// Forward (adjoint = false): q' = q + c M L q, M masking walls. Adjoint: a' = a + c L M a.
// Split, the rows above and below the slab are fetched first (the Laplacian reads them).
template <class IsWall>
void diffuse(const Lattice& l, double c, std::span<double> q, std::span<double> scratch, const IsWall& is_wall,
             bool adjoint, const RowSlabs* slabs) {
  const Index n = static_cast<Index>(l.cx) * l.cy;
  if (slabs) slabs->fill_halo(q.subspan(0, static_cast<std::size_t>(n)), l.cx, 1, 1, l.wrap_y);
  for (Index k = 0; k < n; ++k)
    scratch[static_cast<std::size_t>(k)] = adjoint && is_wall(k) ? 0.0 : q[static_cast<std::size_t>(k)];
  const std::span<const double> x = scratch.subspan(0, static_cast<std::size_t>(n));
  if (adjoint) add_laplacian(l, c, x, q, [](Index) { return false; }, slabs);
  else add_laplacian(l, c, x, q, is_wall, slabs);
}

// Both components, forward or adjoint.
void viscosity_pass(const SmokeModel& m, std::span<double> u, std::span<double> v, std::span<double> scratch,
                    bool adjoint, const RowSlabs* slabs) {
  const Grid& g = m.grid;
  if (m.settings.viscosity == 0.0) return;
  const double c = m.settings.dt * m.settings.viscosity / (g.h() * g.h());
  diffuse(g.u_lattice(), c, u, scratch, [&](Index k) { return g.u_wall(k); }, adjoint, slabs);
  diffuse(g.v_lattice(), c, v, scratch, [&](Index k) { return g.v_wall(k); }, adjoint, slabs);
}

}  // namespace

void apply_viscosity(const SmokeModel& m, const Velocity<2>& velocity, std::span<double> scratch, const RowSlabs* slabs) {
  viscosity_pass(m, velocity[0], velocity[1], scratch, false, slabs);
}

void apply_viscosity_adjoint(const SmokeModel& m, const Velocity<2>& adjoint, std::span<double> scratch,
                             const RowSlabs* slabs) {
  viscosity_pass(m, adjoint[0], adjoint[1], scratch, true, slabs);
}

void zero_walls(const Grid& g, const Velocity<2>& velocity) {
  if (!g.has_walls()) return;
  const std::span<double> u = velocity[0], v = velocity[1];
  for (Index k = 0; k < g.u_count(); ++k)
    if (g.u_wall(k)) u[static_cast<std::size_t>(k)] = 0.0;
  for (Index k = 0; k < g.v_count(); ++k)
    if (g.v_wall(k)) v[static_cast<std::size_t>(k)] = 0.0;
}

}  // namespace simgrad::fluid
