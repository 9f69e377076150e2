// Finite-difference checks of every stage of a smoke step and its hand-written adjoint: each
// stage F is checked through f(x) = w . F(x) for fixed random weights w, whose gradient is the
// adjoint applied to w.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rng.hpp"
#include "sims/fluid/advect.hpp"
#include "sims/fluid/confinement.hpp"
#include "sims/fluid/forcing.hpp"
#include "sims/fluid/pressure.hpp"
#include "stage_check.hpp"

namespace simgrad::fluid {
namespace {

Grid closed_grid() { return Grid(6, 5, 0.2, Side::kClosed, Side::kOpen, Side::kClosed, Side::kClosed); }
Grid periodic_grid() { return Grid(6, 5, 0.2, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic); }

// A grid taller than one band of the adjoint's scatter (band_scatter.hpp), periodic or closed.
Grid tall_grid(bool periodic) {
  const Side s = periodic ? Side::kPeriodic : Side::kClosed;
  return Grid(4, 19, 0.2, s, s, s, periodic ? Side::kPeriodic : Side::kOpen);
}

// Advection of a quantity on lattice l by `scheme`: inputs [q, u, v].
void check_advection(const Grid& g, const Lattice& l, std::uint64_t seed, AdvectionScheme scheme = AdvectionScheme::kSemiLagrangian,
                     double dt = 0.13, Backtrace backtrace = Backtrace::kMidpoint) {
  const std::size_t nq = static_cast<std::size_t>(l.cx * l.cy), nu = static_cast<std::size_t>(g.u_count()),
                    nv = static_cast<std::size_t>(g.v_count());
  Advector advector(g, backtrace);
  check_stage(
      nq + nu + nv, nq,
      [&](std::span<const double> x, std::span<double> out) {
        advector.advect(scheme, l, x.subspan(0, nq), {x.subspan(nq, nu), x.subspan(nq + nu, nv)}, dt, out);
      },
      [&](std::span<const double> x, std::span<const double> w) {
        std::vector<double> dx(x.size(), 0.0);
        std::span<double> d(dx);
        advector.advect_adjoint(scheme, l, x.subspan(0, nq), {x.subspan(nq, nu), x.subspan(nq + nu, nv)}, dt, w,
                                d.subspan(0, nq), {d.subspan(nq, nu), d.subspan(nq + nu, nv)});
        return dx;
      },
      seed);
}

TEST(FluidKernels, AdvectionAdjointMatchesFiniteDifferences) {
  for (const Grid& g : {closed_grid(), periodic_grid()}) {
    check_advection(g, g.cell_lattice(), 11);
    check_advection(g, g.u_lattice(), 12);
    check_advection(g, g.v_lattice(), 13);
  }
  // Several bands, and traces several rows long (windows that wrap or reach the edges).
  for (const Grid& g : {tall_grid(true), tall_grid(false)}) {
    check_advection(g, g.cell_lattice(), 14, AdvectionScheme::kSemiLagrangian, 2.1);
    check_advection(g, g.v_lattice(), 15, AdvectionScheme::kSemiLagrangian, 2.1);
  }
}

// A replay that keeps MacCormack's passes spares the adjoint tracing them again: the adjoint from
// kept passes has the bits of the one that traces its own, with other calls (kept under other
// numbers, or keeping none) in between; passes never kept are refused.
TEST(FluidKernels, MacCormackAdjointFromKeptPassesHasTheSameBits) {
  for (const Grid& g : {closed_grid(), periodic_grid()}) {
    const std::size_t nu = static_cast<std::size_t>(g.u_count()), nv = static_cast<std::size_t>(g.v_count());
    const std::vector<double> u = random_values(nu, 141, 0.7), v = random_values(nv, 142, 0.7);
    Advector keeping(g), tracing(g);
    int slot = 0;
    for (const Lattice& l : {g.u_lattice(), g.v_lattice(), g.cell_lattice()}) {
      const std::size_t nq = static_cast<std::size_t>(l.cx * l.cy);
      const std::vector<double> q = random_values(nq, 143 + static_cast<std::uint64_t>(slot), 1.0),
                                w = random_values(nq, 150 + static_cast<std::uint64_t>(slot), 1.0);
      std::vector<double> out(nq), other(nq);
      keeping.advect(AdvectionScheme::kMacCormack, l, q, {u, v}, 0.13, out, slot);
      keeping.advect(AdvectionScheme::kMacCormack, l, w, {u, v}, 0.13, other, slot + 1);
      keeping.advect(AdvectionScheme::kMacCormack, l, w, {u, v}, -0.3, other);
      std::vector<double> dq_kept(nq, 0.0), dq_traced(nq, 0.0), du_kept(nu, 0.0), du_traced(nu, 0.0), dv_kept(nv, 0.0),
          dv_traced(nv, 0.0);
      keeping.advect_adjoint(AdvectionScheme::kMacCormack, l, q, {u, v}, 0.13, w, dq_kept, {du_kept, dv_kept}, slot);
      tracing.advect_adjoint(AdvectionScheme::kMacCormack, l, q, {u, v}, 0.13, w, dq_traced, {du_traced, dv_traced});
      EXPECT_EQ(dq_kept, dq_traced) << "slot " << slot;
      EXPECT_EQ(du_kept, du_traced) << "slot " << slot;
      EXPECT_EQ(dv_kept, dv_traced) << "slot " << slot;
      ++slot;
    }
    std::vector<double> dq(static_cast<std::size_t>(g.cells()), 0.0), du(nu, 0.0), dv(nv, 0.0), w(dq.size(), 1.0);
    EXPECT_THROW(keeping.advect_adjoint(AdvectionScheme::kMacCormack, g.cell_lattice(), w, {u, v}, 0.1, w, dq, {du, dv}, 4),
                 std::logic_error);
    EXPECT_THROW(keeping.advect_adjoint(AdvectionScheme::kMacCormack, g.cell_lattice(), w, {u, v}, 0.1, w, dq, {du, dv}, -2),
                 std::out_of_range);
  }
}

// One Euler step back instead of the midpoint rule, for every lattice, boundary kind and both
// schemes that trace.
TEST(FluidKernels, EulerTraceAdvectionAdjointMatchesFiniteDifferences) {
  for (const Grid& g : {closed_grid(), periodic_grid()})
    for (AdvectionScheme scheme : {AdvectionScheme::kSemiLagrangian, AdvectionScheme::kMacCormack}) {
      check_advection(g, g.cell_lattice(), 91, scheme, 0.13, Backtrace::kEuler);
      check_advection(g, g.u_lattice(), 92, scheme, 0.13, Backtrace::kEuler);
      check_advection(g, g.v_lattice(), 93, scheme, 0.13, Backtrace::kEuler);
    }
  for (const Grid& g : {tall_grid(true), tall_grid(false)})
    check_advection(g, g.cell_lattice(), 94, AdvectionScheme::kSemiLagrangian, 2.1, Backtrace::kEuler);
}

// On grids periodic along both axes, traces start on lattice points and skip the clamping. That
// path, one sample at a time and four at a time (where the processor has the vector kernels),
// gives the general bilinear stencils' bits forward; its adjoint gathers what reaches the
// traces' starts after the scatter (the general path scatters it with the rest), so it agrees
// with the general adjoint to rounding, and the scalar and vector forms agree bit for bit. Every
// lattice, both schemes that trace, both trace rules, traces that wrap several times, dq its own
// field and dq = du, rows of 4 and more samples (vector groups with a scalar tail) and a sample
// adjoint that is zero (skipped by every path).
TEST(FluidKernels, PeriodicAdvectionMatchesTheGeneralStencils) {
  const Grid grids[] = {Grid(7, 5, 0.2, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic),
                        Grid(13, 9, 0.1, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic),
                        Grid(21, 6, 0.1, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic), tall_grid(true)};
  for (const Grid& g : grids)
    for (AdvectionScheme scheme : {AdvectionScheme::kSemiLagrangian, AdvectionScheme::kMacCormack})
      for (Backtrace backtrace : {Backtrace::kMidpoint, Backtrace::kEuler})
      for (const Lattice& l : {g.u_lattice(), g.v_lattice(), g.cell_lattice()})
        for (double dt : {0.13, 3.7}) {
          const std::size_t nq = static_cast<std::size_t>(l.cx * l.cy), nu = static_cast<std::size_t>(g.u_count()),
                            nv = static_cast<std::size_t>(g.v_count());
          const std::vector<double> q = random_values(nq, 81, 1.0), u = random_values(nu, 82, 0.7),
                                    v = random_values(nv, 83, 0.7);
          std::vector<double> w = random_values(nq, 84, 1.0);
          w[nq / 2] = 0.0;
          Advector general(g, backtrace, TracePath::kGeneral), scalar(g, backtrace, TracePath::kScalar),
              fastest(g, backtrace, TracePath::kFastest);
          std::vector<double> out_general(nq), out_scalar(nq), out_fastest(nq);
          general.advect(scheme, l, q, {u, v}, dt, out_general);
          scalar.advect(scheme, l, q, {u, v}, dt, out_scalar);
          fastest.advect(scheme, l, q, {u, v}, dt, out_fastest);
          EXPECT_EQ(out_scalar, out_general);
          EXPECT_EQ(out_fastest, out_general);
          for (bool q_is_u : {false, true}) {
            if (q_is_u && !(l.ox == 0.0 && l.oy == 0.5)) continue;
            auto adjoint = [&](Advector& a) {
              std::vector<double> d(nq + nu + nv, 0.25);
              std::span<double> s(d);
              const std::span<double> du = s.subspan(nq, nu), dq = q_is_u ? du : s.subspan(0, nq);
              a.advect_adjoint(scheme, l, q_is_u ? std::span<const double>(u) : std::span<const double>(q), {u, v}, dt, w, dq,
                               {du, s.subspan(nq + nu, nv)});
              return d;
            };
            const std::vector<double> d_general = adjoint(general), d_scalar = adjoint(scalar), d_fastest = adjoint(fastest);
            EXPECT_EQ(d_fastest, d_scalar);
            double largest = 0.0;
            for (double x : d_general) largest = std::max(largest, std::abs(x));
            for (std::size_t k = 0; k < d_general.size(); ++k) ASSERT_NEAR(d_scalar[k], d_general[k], 1e-13 * largest) << k;
          }
        }
}

// A trace that lands a million cells away or more sends its group of four down the scalar path,
// which folds it back onto the grid first; the groups around it stay vector ones. On rows 13
// and 21 samples wide (groups, then a last group overlapping the one before) with a few faces
// moving 1e9 cells a step, the fastest path still gives the scalar path's bits, forward and
// adjoint, and the general stencils' forward.
TEST(FluidKernels, PeriodicTracesFarOffFallBackToTheScalarPath) {
  for (const int nx : {13, 21}) {
    const Grid g(nx, 9, 0.1, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic);
    const std::size_t nu = static_cast<std::size_t>(g.u_count()), nv = static_cast<std::size_t>(g.v_count());
    std::vector<double> u = random_values(nu, 161, 0.7), v = random_values(nv, 162, 0.7);
    // Faces in the first group of row 2, the last (overlapping) group of row 5 and the middle of row 7.
    for (const int i : {1, nx - 2}) u[static_cast<std::size_t>(g.u_face(i, i == 1 ? 2 : 5))] = 1e9;
    v[static_cast<std::size_t>(g.v_face(nx / 2, 7))] = -1e9;
    for (Backtrace backtrace : {Backtrace::kMidpoint, Backtrace::kEuler})
      for (const Lattice& l : {g.u_lattice(), g.v_lattice(), g.cell_lattice()}) {
        const std::size_t nq = static_cast<std::size_t>(l.cx * l.cy);
        const std::vector<double> q = random_values(nq, 163, 1.0), w = random_values(nq, 164, 1.0);
        Advector general(g, backtrace, TracePath::kGeneral), scalar(g, backtrace, TracePath::kScalar),
            fastest(g, backtrace, TracePath::kFastest);
        std::vector<double> out_general(nq), out_scalar(nq), out_fastest(nq);
        general.advect(AdvectionScheme::kSemiLagrangian, l, q, {u, v}, 0.1, out_general);
        scalar.advect(AdvectionScheme::kSemiLagrangian, l, q, {u, v}, 0.1, out_scalar);
        fastest.advect(AdvectionScheme::kSemiLagrangian, l, q, {u, v}, 0.1, out_fastest);
        EXPECT_EQ(out_scalar, out_general);
        EXPECT_EQ(out_fastest, out_scalar);
        auto adjoint = [&](Advector& a) {
          std::vector<double> d(nq + nu + nv, 0.25);
          std::span<double> s(d);
          a.advect_adjoint(AdvectionScheme::kSemiLagrangian, l, q, {u, v}, 0.1, w, s.subspan(0, nq),
                           {s.subspan(nq, nu), s.subspan(nq + nu, nv)});
          return d;
        };
        const std::vector<double> d_scalar = adjoint(scalar), d_fastest = adjoint(fastest);
        for (double x : d_scalar) ASSERT_TRUE(std::isfinite(x));
        EXPECT_EQ(d_fastest, d_scalar);
      }
  }
}

// Several quantities advected in one pass give the bits of one advect call each (lattices of
// different sizes on a closed grid, equal ones on a periodic grid), and an empty quantity zeros.
TEST(FluidKernels, AdvectingTogetherMatchesAdvectingOneByOne) {
  for (const Grid& g : {closed_grid(), periodic_grid(), Grid(40, 30, 0.05, Side::kClosed, Side::kOpen, Side::kClosed, Side::kOpen)})
    for (Backtrace backtrace : {Backtrace::kMidpoint, Backtrace::kEuler}) {
      const std::size_t nu = static_cast<std::size_t>(g.u_count()), nv = static_cast<std::size_t>(g.v_count()),
                        nc = static_cast<std::size_t>(g.cells());
      const std::vector<double> u = random_values(nu, 91, 0.7), v = random_values(nv, 92, 0.7), q = random_values(nc, 93, 1.0);
      Advector advector(g, backtrace);
      std::vector<double> u1(nu), v1(nv), q1(nc), zero1(nc, 5.0), u2(nu), v2(nv), q2(nc);
      const Advector::Carried items[] = {{g.u_lattice(), u, u1}, {g.v_lattice(), v, v1}, {g.cell_lattice(), q, q1},
                                         {g.cell_lattice(), {}, zero1}};
      advector.semi_lagrangian_together(items, {u, v}, 0.21);
      advector.advect(AdvectionScheme::kSemiLagrangian, g.u_lattice(), u, {u, v}, 0.21, u2);
      advector.advect(AdvectionScheme::kSemiLagrangian, g.v_lattice(), v, {u, v}, 0.21, v2);
      advector.advect(AdvectionScheme::kSemiLagrangian, g.cell_lattice(), q, {u, v}, 0.21, q2);
      EXPECT_EQ(u1, u2);
      EXPECT_EQ(v1, v2);
      EXPECT_EQ(q1, q2);
      EXPECT_EQ(zero1, std::vector<double>(nc, 0.0));
    }
}

// The adjoint of advecting velocity, smoke and temperature together: on a grid periodic along
// both axes one scatter serves all four, within rounding of one adjoint call each, with the
// scalar and vector paths bit for bit alike; elsewhere (here the general stencils) it is one call
// each, the same bits.
TEST(FluidKernels, AdvectionAdjointTogetherMatchesOneByOne) {
  const Grid grids[] = {Grid(7, 5, 0.2, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic),
                        Grid(21, 19, 0.1, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic, Side::kPeriodic)};
  for (const Grid& g : grids)
    for (Backtrace backtrace : {Backtrace::kMidpoint, Backtrace::kEuler}) {
      const std::size_t n = static_cast<std::size_t>(g.cells());
      const std::vector<double> u = random_values(n, 95, 0.9), v = random_values(n, 96, 0.9), rho = random_values(n, 97, 1.0),
                                heat = random_values(n, 98, 1.0), au = random_values(n, 99, 1.0), av = random_values(n, 100, 1.0),
                                arho = random_values(n, 101, 1.0), aheat = random_values(n, 102, 1.0);
      // [du, dv, d rho, d heat] from 0.5 (adjoints add), together or one by one.
      auto adjoint = [&](TracePath path, bool together) {
        std::vector<double> d(4 * n, 0.5);
        std::span<double> s(d);
        const std::span<double> du = s.subspan(0, n), dv = s.subspan(n, n), drho = s.subspan(2 * n, n), dheat = s.subspan(3 * n, n);
        Advector a(g, backtrace, path);
        const Advector::CarriedAdjoint items[] = {{g.u_lattice(), u, au, du}, {g.v_lattice(), v, av, dv},
                                                  {g.cell_lattice(), rho, arho, drho}, {g.cell_lattice(), heat, aheat, dheat}};
        if (together) {
          a.semi_lagrangian_adjoint_together(items, {u, v}, 0.37, {du, dv});
        } else {
          for (const Advector::CarriedAdjoint& c : items)
            a.advect_adjoint(AdvectionScheme::kSemiLagrangian, c.lattice, c.q, {u, v}, 0.37, c.dout, c.dq, {du, dv});
        }
        return d;
      };
      const std::vector<double> separate = adjoint(TracePath::kFastest, false), together = adjoint(TracePath::kFastest, true);
      EXPECT_EQ(adjoint(TracePath::kScalar, true), together);
      EXPECT_EQ(adjoint(TracePath::kGeneral, true), adjoint(TracePath::kGeneral, false));
      double largest = 0.0;
      for (double x : separate) largest = std::max(largest, std::abs(x));
      for (std::size_t k = 0; k < separate.size(); ++k) ASSERT_NEAR(together[k], separate[k], 1e-13 * largest) << k;
    }
}

// MacCormack with its limiter: random fields clamp some samples and not others; the clamp is
// piecewise, and random fields keep the finite differences away from its switches.
TEST(FluidKernels, MacCormackAdjointMatchesFiniteDifferences) {
  for (const Grid& g : {closed_grid(), periodic_grid(), tall_grid(true)}) {
    check_advection(g, g.cell_lattice(), 51, AdvectionScheme::kMacCormack);
    check_advection(g, g.u_lattice(), 52, AdvectionScheme::kMacCormack);
    check_advection(g, g.v_lattice(), 53, AdvectionScheme::kMacCormack, 0.9);
  }
}

// Conservative upwind fluxes (cells only), with walls, an open side and a solid cell.
TEST(FluidKernels, ConservativeAdvectionAdjointMatchesFiniteDifferences) {
  Grid with_solid = closed_grid();
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(with_solid.cells()), 0);
  solid[static_cast<std::size_t>(with_solid.cell(2, 2))] = 1;
  with_solid.set_solid(solid);
  for (const Grid& g : {with_solid, periodic_grid()}) check_advection(g, g.cell_lattice(), 61, AdvectionScheme::kConservative);
}

// The projection is linear: its adjoint against finite differences for both solvers and
// boundary kinds, with a solid cell and (periodic, where every cell has four neighbours) without
// (CG to a tight tolerance, so the solve is the exact inverse to rounding).
TEST(FluidKernels, ProjectionAdjointMatchesFiniteDifferences) {
  struct Case {
    Grid grid;
    bool with_solid;
  };
  for (const Case& c : {Case{closed_grid(), true}, Case{periodic_grid(), true}, Case{periodic_grid(), false}})
    for (PressureSolver solver : {PressureSolver::kConjugateGradient, PressureSolver::kJacobi}) {
      Grid g = c.grid;
      std::vector<std::uint8_t> solid(static_cast<std::size_t>(g.cells()), 0);
      if (c.with_solid) solid[static_cast<std::size_t>(g.cell(3, 2))] = 1;
      g.set_solid(solid);
      PressureSettings s;
      s.solver = solver;
      s.tolerance = 1e-13;
      s.jacobi_iterations = 7;
      Projection p(g, s);
      const std::size_t nu = static_cast<std::size_t>(g.u_count()), nv = static_cast<std::size_t>(g.v_count());
      auto walls_zeroed = [&](std::span<const double> x) {
        std::vector<double> y(x.begin(), x.end());
        zero_walls(g, {std::span<double>(y).subspan(0, nu), std::span<double>(y).subspan(nu, nv)});
        return y;
      };
      check_stage(
          nu + nv, nu + nv,
          [&](std::span<const double> x, std::span<double> out) {
            std::vector<double> y = walls_zeroed(x);
            std::copy(y.begin(), y.end(), out.begin());
            p.project({out.subspan(0, nu), out.subspan(nu, nv)});
          },
          [&](std::span<const double>, std::span<const double> w) {
            std::vector<double> a(w.begin(), w.end());
            p.project_adjoint({std::span<double>(a).subspan(0, nu), std::span<double>(a).subspan(nu, nv)});
            return walls_zeroed(a);
          },
          21);
    }
}

// A model with two sources and every force on, for the forcing stages.
SmokeModel forcing_model(const Grid& g) {
  SmokeModel m;
  SmokeSettings s;
  s.dt = 0.05;
  s.steps = 10;
  s.buoyancy = 1.5;
  s.weight = 0.7;
  s.viscosity = 0.05;
  m.reset(g, s);
  m.add_source("emitter", 0.55, 0.41, 0.3, 2.0, 3.0, 1.2, 0.7);
  m.add_source("vent", 0.93, 0.2, 0.25, 0.0, 0.0, 0.8, 2.0);
  m.set_knots(3);
  m.speed.assign({1.2, 0.9, 1.4, 0.8, 0.5, 1.1}, true);
  m.angle.assign({0.7, 0.3, 1.0, 2.0, 2.4, 1.9}, true);
  return m;
}

// Source parameters as a flat vector: x, y, radius, density rate, temperature rate, speed, angle.
std::vector<Array<1>*> source_quantities(SmokeModel& m) {
  return {&m.source_x, &m.source_y, &m.source_radius, &m.density_rate, &m.temperature_rate, &m.speed, &m.angle};
}

TEST(FluidKernels, SourceAdjointMatchesFiniteDifferencesInFieldsAndParameters) {
  for (const Grid& g : {closed_grid(), periodic_grid()}) {
    SmokeModel m = forcing_model(g);
    const int t = 4;  // between knots 0 and 1
    std::size_t np = 0;
    for (Array<1>* q : source_quantities(m)) np += q->values().size();
    const std::size_t ns = static_cast<std::size_t>(m.state_size());
    auto set_params = [&](std::span<const double> x) {
      std::size_t k = ns;
      for (Array<1>* q : source_quantities(m))
        for (double& v : q->values()) v = x[k++];
    };
    std::vector<double> base(ns + np);
    {
      std::vector<double> fields = random_values(ns, 31, 0.3);
      std::copy(fields.begin(), fields.end(), base.begin());
      std::size_t k = ns;
      for (Array<1>* q : source_quantities(m))
        for (double v : q->values()) base[k++] = v;
    }
    const std::vector<double> w = random_values(ns, 32, 1.0);
    auto f = [&](std::span<const double> x) {
      set_params(x);
      std::vector<double> state(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(ns));
      for (int s = 0; s < m.source_count(); ++s) apply_source(m, s, t, fields_of(g, std::span<double>(state)));
      return dot(w, state);
    };
    // Adjoint: replay with snapshots, then reverse.
    set_params(base);
    std::vector<double> state(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(ns));
    std::vector<std::vector<double>> before;
    for (int s = 0; s < m.source_count(); ++s) {
      before.push_back(state);
      apply_source(m, s, t, fields_of(g, std::span<double>(state)));
    }
    m.clear_adjoints();
    std::vector<double> a = w;
    for (int s = m.source_count() - 1; s >= 0; --s) {
      std::span<const double> b(before[static_cast<std::size_t>(s)]);
      apply_source_adjoint(m, s, t, fields_of(g, b).velocity, fields_of(g, std::span<double>(a)));
    }
    std::vector<double> grad(a);
    for (Array<1>* q : source_quantities(m)) grad.insert(grad.end(), q->adjoints().begin(), q->adjoints().end());
    GradCheckOptions o;
    o.rtol = 1e-5;
    o.atol = 1e-8;
    const GradCheckReport r = check_gradient(f, base, grad, o);
    for (const GradCheckEntry& e : r.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
  }
}

TEST(FluidKernels, BuoyancyAndViscosityAdjointsMatchFiniteDifferences) {
  for (const Grid& g : {closed_grid(), periodic_grid()}) {
    const SmokeModel m = forcing_model(g);
    const std::size_t ns = static_cast<std::size_t>(m.state_size());
    const std::size_t nu = static_cast<std::size_t>(g.u_count()), nv = static_cast<std::size_t>(g.v_count());
    std::vector<double> scratch(std::max(nu, nv));
    check_stage(
        ns, ns,
        [&](std::span<const double> x, std::span<double> out) {
          std::copy(x.begin(), x.end(), out.begin());
          apply_buoyancy(m, fields_of(g, out));
          apply_viscosity(m, {out.subspan(0, nu), out.subspan(nu, nv)}, scratch);
        },
        [&](std::span<const double>, std::span<const double> w) {
          std::vector<double> a(w.begin(), w.end());
          const FieldsView f = fields_of(g, std::span<double>(a));
          apply_viscosity_adjoint(m, f.velocity, scratch);
          apply_buoyancy_adjoint(m, f);
          return a;
        },
        41);
  }
}

// Vorticity confinement in the velocities and its strength: inputs [u, v, epsilon].
TEST(FluidKernels, VorticityConfinementAdjointMatchesFiniteDifferences) {
  Grid with_solid = closed_grid();
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(with_solid.cells()), 0);
  solid[static_cast<std::size_t>(with_solid.cell(3, 2))] = 1;
  with_solid.set_solid(solid);
  for (const Grid& g : {with_solid, periodic_grid()}) {
    SmokeModel m;
    SmokeSettings s;
    s.dt = 0.1;
    s.confinement = true;
    m.reset(g, s);
    Confinement confinement(m.grid);
    const std::size_t nu = static_cast<std::size_t>(g.u_count()), nv = static_cast<std::size_t>(g.v_count());
    check_stage(
        nu + nv + 1, nu + nv,
        [&](std::span<const double> x, std::span<double> out) {
          m.confinement.values()[0] = x[nu + nv];
          std::copy(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(nu + nv), out.begin());
          confinement.apply(m, {out.subspan(0, nu), out.subspan(nu, nv)});
        },
        [&](std::span<const double> x, std::span<const double> w) {
          m.confinement.values()[0] = x[nu + nv];
          m.clear_adjoints();
          std::vector<double> dx(w.begin(), w.end());
          std::span<double> d(dx);
          confinement.apply_adjoint(m, {x.subspan(0, nu), x.subspan(nu, nv)}, {d.subspan(0, nu), d.subspan(nu, nv)});
          dx.push_back(m.confinement.adjoints()[0]);
          return dx;
        },
        71, 1.0);
  }
}

// zero_walls skips grids without walls: a periodic grid has none until a solid cell gives it
// four, which are zeroed and nothing else.
TEST(FluidKernels, ZeroWallsClearsExactlyTheWallFaces) {
  Grid g = periodic_grid();
  EXPECT_FALSE(g.has_walls());
  EXPECT_TRUE(closed_grid().has_walls());
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(g.cells()), 0);
  solid[static_cast<std::size_t>(g.cell(2, 3))] = 1;
  g.set_solid(solid);
  ASSERT_TRUE(g.has_walls());
  std::vector<double> u(static_cast<std::size_t>(g.u_count()), 1.0), v(static_cast<std::size_t>(g.v_count()), 1.0);
  zero_walls(g, {u, v});
  const Index walls[4] = {g.u_face(2, 3), g.right_face(2, 3), g.v_face(2, 3), g.top_face(2, 3)};
  for (Index f = 0; f < g.u_count(); ++f)
    EXPECT_EQ(u[static_cast<std::size_t>(f)], f == walls[0] || f == walls[1] ? 0.0 : 1.0) << "x-face " << f;
  for (Index f = 0; f < g.v_count(); ++f)
    EXPECT_EQ(v[static_cast<std::size_t>(f)], f == walls[2] || f == walls[3] ? 0.0 : 1.0) << "y-face " << f;
}

}  // namespace
}  // namespace simgrad::fluid
