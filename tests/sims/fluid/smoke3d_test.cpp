// 3D smoke: every stage's adjoint and a whole rollout's gradient against finite differences,
// divergence after projection, exact transport by a uniform flow (a closed form), and
// bit-for-bit determinism across thread counts and checkpoint policies.
#include "sims/fluid/smoke.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../state_hash.hpp"
#include "core/gradcheck.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "core/rollout.hpp"
#include "sims/fluid/advect3d.hpp"
#include "sims/fluid/forcing3d.hpp"
#include "sims/fluid/losses.hpp"
#include "sims/fluid/tunables.hpp"
#include "stage_check.hpp"

namespace simgrad::fluid {
namespace {

using Sides = std::array<Side, 6>;
constexpr Sides kRoomSides = {Side::kClosed, Side::kClosed, Side::kClosed, Side::kOpen, Side::kClosed, Side::kClosed};
constexpr Sides kPeriodicSides = {Side::kPeriodic, Side::kPeriodic, Side::kPeriodic,
                                  Side::kPeriodic, Side::kPeriodic, Side::kPeriodic};

// A small grid with one solid cell.
Grid3 small_grid(const Sides& sides) {
  Grid3 g({4, 3, 3}, 0.25, sides);
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(g.cells()), 0);
  solid[static_cast<std::size_t>(g.cell(2, 1, 1))] = 1;
  g.set_solid(solid);
  return g;
}

// The state's velocity split into components.
Velocity3 velocity_in(const Grid3& g, std::span<double> x) { return fields_of(g, x).velocity; }

TEST(Smoke3d, AdvectionAdjointMatchesFiniteDifferences) {
  for (const Sides& sides : {kRoomSides, kPeriodicSides}) {
    const Grid3 g = small_grid(sides);
    const std::size_t nf = static_cast<std::size_t>(g.face_count());
    for (int lattice = 0; lattice < 4; ++lattice) {
      const Lattice3 l = lattice < 3 ? g.face_lattice(lattice) : g.cell_lattice();
      const std::size_t nq = static_cast<std::size_t>(l.size());
      // Inputs [velocity, q]; q placed where the state keeps density so fields_of splits them.
      auto split = [&](std::span<const double> x) {
        ConstVelocity3 v;
        std::size_t at = 0;
        for (std::size_t a = 0; a < 3; ++a) {
          const std::size_t n = static_cast<std::size_t>(g.face_count(static_cast<int>(a)));
          v[a] = x.subspan(at, n);
          at += n;
        }
        return v;
      };
      check_stage(
          nf + nq, nq,
          [&](std::span<const double> x, std::span<double> out) { advect(g, l, x.subspan(nf, nq), split(x), 0.11, out); },
          [&](std::span<const double> x, std::span<const double> w) {
            std::vector<double> dx(x.size(), 0.0);
            std::span<double> d(dx);
            Velocity3 dv;
            std::size_t at = 0;
            for (std::size_t a = 0; a < 3; ++a) {
              const std::size_t n = static_cast<std::size_t>(g.face_count(static_cast<int>(a)));
              dv[a] = d.subspan(at, n);
              at += n;
            }
            advect_adjoint(g, l, x.subspan(nf, nq), split(x), 0.11, w, d.subspan(nf, nq), dv);
            return dx;
          },
          51 + static_cast<std::uint64_t>(lattice), 0.6);
    }
  }
}

// The projection is linear: its adjoint (one transposed solve) against finite differences.
TEST(Smoke3d, ProjectionAdjointMatchesFiniteDifferences) {
  for (const Sides& sides : {kRoomSides, kPeriodicSides}) {
    const Grid3 g = small_grid(sides);
    PressureSettings s;
    s.tolerance = 1e-13;
    Projection3 p(g, s);
    const std::size_t nf = static_cast<std::size_t>(g.face_count());
    auto walls_zeroed = [&](std::span<const double> x) {
      std::vector<double> y(x.begin(), x.end());
      zero_walls(g, velocity_in(g, std::span<double>(y.data(), y.size())));
      return y;
    };
    // fields_of needs a whole state: pad the faces with cells.
    const std::size_t pad = 2 * static_cast<std::size_t>(g.cells());
    check_stage(
        nf, nf,
        [&](std::span<const double> x, std::span<double> out) {
          std::vector<double> y = walls_zeroed(x);
          y.resize(nf + pad);
          p.project(velocity_in(g, y));
          std::copy(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(nf), out.begin());
        },
        [&](std::span<const double>, std::span<const double> w) {
          std::vector<double> a(w.begin(), w.end());
          a.resize(nf + pad);
          p.project_adjoint(velocity_in(g, a));
          a.resize(nf);
          return walls_zeroed(a);
        },
        61);
  }
}

// A model with an emitter and a vent leaning out of the x-y plane, and every force on.
SmokeModel3 forcing_model(const Grid3& g, int steps) {
  SmokeModel3 m;
  SmokeSettings s;
  s.dt = 0.05;
  s.steps = steps;
  s.buoyancy = 1.5;
  s.weight = 0.7;
  s.viscosity = 0.05;
  s.pressure.tolerance = 1e-13;
  m.reset(g, s);
  m.add_source("emitter", {0.41, 0.3, 0.37}, 0.3, 2.0, 3.0, 1.2, 0.7, 0.3);
  m.add_source("vent", {0.83, 0.52, 0.2}, 0.25, 0.0, 0.0, 0.8, 2.0, -0.4);
  m.set_knots(3);
  m.speed.assign({1.2, 0.9, 1.4, 0.8, 0.5, 1.1}, true);
  m.angle.assign({0.7, 0.3, 1.0, 2.0, 2.4, 1.9}, true);
  m.tilt.assign({0.3, 0.5, 0.1, -0.4, -0.2, 0.2}, true);
  return m;
}

std::vector<Array<1>*> source_quantities(SmokeModel3& m) {
  return {&m.source_x, &m.source_y, &m.source_z, &m.source_radius, &m.density_rate, &m.temperature_rate,
          &m.speed,    &m.angle,    &m.tilt};
}

TEST(Smoke3d, SourceAdjointMatchesFiniteDifferencesInFieldsAndParameters) {
  for (const Sides& sides : {kRoomSides, kPeriodicSides}) {
    SmokeModel3 m = forcing_model(small_grid(sides), 10);
    const Grid3& g = m.grid;
    const int t = 4;
    const std::size_t ns = static_cast<std::size_t>(m.state_size()), nf = static_cast<std::size_t>(g.face_count());
    auto set_params = [&](std::span<const double> x) {
      std::size_t k = ns;
      for (Array<1>* q : source_quantities(m))
        for (double& v : q->values()) v = x[k++];
    };
    std::vector<double> base = random_values(ns, 71, 0.3);
    for (Array<1>* q : source_quantities(m)) base.insert(base.end(), q->values().begin(), q->values().end());
    const std::vector<double> w = random_values(ns, 72, 1.0);
    auto f = [&](std::span<const double> x) {
      set_params(x);
      std::vector<double> state(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(ns));
      for (int s = 0; s < m.source_count(); ++s) apply_source(m, s, t, fields_of(g, std::span<double>(state)));
      return dot(w, state);
    };
    set_params(base);
    std::vector<double> state(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(ns));
    std::vector<std::vector<double>> before;
    for (int s = 0; s < m.source_count(); ++s) {
      before.push_back(state);
      apply_source(m, s, t, fields_of(g, std::span<double>(state)));
    }
    m.clear_adjoints();
    std::vector<double> a = w;
    for (int s = m.source_count() - 1; s >= 0; --s)
      apply_source_adjoint(m, s, t, fields_of(g, std::span<const double>(before[static_cast<std::size_t>(s)])).velocity,
                           fields_of(g, std::span<double>(a)));
    std::vector<double> grad(a);
    for (Array<1>* q : source_quantities(m)) grad.insert(grad.end(), q->adjoints().begin(), q->adjoints().end());
    GradCheckOptions o;
    o.rtol = 1e-5;
    o.atol = 1e-8;
    const GradCheckReport r = check_gradient(f, base, grad, o);
    for (const GradCheckEntry& e : r.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
    (void)nf;
  }
}

TEST(Smoke3d, BuoyancyAndViscosityAdjointsMatchFiniteDifferences) {
  for (const Sides& sides : {kRoomSides, kPeriodicSides}) {
    const SmokeModel3 m = forcing_model(small_grid(sides), 10);
    const Grid3& g = m.grid;
    const std::size_t ns = static_cast<std::size_t>(m.state_size());
    std::vector<double> scratch(static_cast<std::size_t>(g.face_count()));
    check_stage(
        ns, ns,
        [&](std::span<const double> x, std::span<double> out) {
          std::copy(x.begin(), x.end(), out.begin());
          const Fields3View f = fields_of(g, out);
          apply_buoyancy(m, f);
          apply_viscosity(m, f.velocity, scratch);
        },
        [&](std::span<const double>, std::span<const double> w) {
          std::vector<double> a(w.begin(), w.end());
          const Fields3View f = fields_of(g, std::span<double>(a));
          apply_viscosity_adjoint(m, f.velocity, scratch);
          apply_buoyancy_adjoint(m, f);
          return a;
        },
        81);
  }
}

// A small room (walls, open top, a solid cell), random initial velocity and smoke, the two
// sources at 3 knots.
SmokeModel3 small_room(std::array<int, 3> n, int steps, double tolerance) {
  Grid3 g(n, 1.0 / n[0], kRoomSides);
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(g.cells()), 0);
  solid[static_cast<std::size_t>(g.cell(n[0] / 2, n[1] / 2, n[2] / 2))] = 1;
  g.set_solid(solid);
  SmokeModel3 m = forcing_model(g, steps);
  m.settings.dt = 0.04;
  m.settings.viscosity = 0.01;
  m.settings.pressure.tolerance = tolerance;
  for (std::size_t k = 0; k < m.initial_velocity.values().size(); ++k) m.initial_velocity.values()[k] = 0.3 * standard_normal(5, 0, k);
  for (std::size_t c = 0; c < m.initial_density.values().size(); ++c) m.initial_density.values()[c] = uniform01(6, 0, c);
  m.source_x.assign({0.31, 0.7}, true);
  m.source_y.assign({0.2, 0.45}, true);
  m.source_z.assign({0.35, 0.3}, true);
  m.source_radius.assign({0.18, 0.15}, true);
  return m;
}

SmokeLossSettings small_loss(const SmokeModel3& m) {
  SmokeLossSettings l;
  l.target.resize(static_cast<std::size_t>(m.grid.cells()));
  for (std::size_t c = 0; c < l.target.size(); ++c) l.target[c] = 0.5 * uniform01(7, 0, c);
  l.region.assign(static_cast<std::size_t>(m.grid.cells()), 0);
  for (int k = 1; k < 3; ++k)
    for (int j = 2; j < 4; ++j)
      for (int i = 3; i < 5; ++i) l.region[static_cast<std::size_t>(m.grid.cell(i, j, k))] = 1;
  l.region_step = m.settings.steps - 1;
  l.smoothness = 0.1;
  return l;
}

std::vector<tune::BoundParameter> all_parameters(SmokeModel3& m) {
  std::vector<tune::BoundParameter> b;
  for (const char* name : {"source_x", "source_y", "source_z", "source_radius", "density_rate", "temperature_rate",
                           "speed", "angle", "tilt", "initial_velocity"}) {
    b.push_back(tune::bind(smoke_tunables<decltype(m.grid)>(), m, name, {}));
  }
  return b;
}

TEST(Smoke3d, RolloutGradientMatchesFiniteDifferences) {
  SmokeModel3 m = small_room({6, 5, 4}, 4, 1e-13);
  Smoke3 system(m);
  SmokeLoss3 loss(m, small_loss(m));
  tune::RolloutProblem problem(system, loss, m.settings.steps, {}, all_parameters(m));
  // The source parameters one by one, the initial velocity in random directions.
  check_problem_gradient(problem, problem.dimension() - m.initial_velocity.values().size(), 4);
}

TEST(Smoke3d, ProjectionLeavesDivergenceBelowTolerance) {
  for (double tolerance : {1e-6, 1e-10}) {
    SmokeModel3 m = small_room({10, 9, 8}, 1, tolerance);
    const Grid3& g = m.grid;
    Projection3 projection(g, m.settings.pressure);
    std::vector<double> v(m.initial_velocity.values().begin(), m.initial_velocity.values().end());
    v.resize(static_cast<std::size_t>(m.state_size()));
    const Velocity3 u = velocity_in(g, v);
    zero_walls(g, u);
    std::vector<double> before(static_cast<std::size_t>(g.cells())), after(before.size());
    projection.divergence({u[0], u[1], u[2]}, before);
    projection.project(u);
    projection.divergence({u[0], u[1], u[2]}, after);
    EXPECT_GT(projection.last_iterations(), 1);
    EXPECT_LE(std::sqrt(sum_of_squares(after)), 1.001 * tolerance * std::sqrt(sum_of_squares(before)));
  }
}

// A uniform flow of one cell per step along each axis on a periodic grid: projection leaves it
// alone and the midpoint trace lands on cell centres, so after s steps the smoke is the start
// shifted by s cells along each axis, exactly up to rounding.
TEST(Smoke3d, UniformFlowTranslatesSmokeExactly) {
  const std::array<int, 3> n = {6, 5, 7};
  const double h = 0.1, dt = 0.05;
  SmokeModel3 m;
  SmokeSettings s;
  s.dt = dt;
  s.steps = 3;
  m.reset(Grid3(n, h, kPeriodicSides), s);
  const Grid3& g = m.grid;
  const std::array<double, 3> speed = {h / dt, -h / dt, 2.0 * h / dt};
  std::size_t at = 0;
  for (int a = 0; a < 3; ++a)
    for (Index k = 0; k < g.face_count(a); ++k) m.initial_velocity.values()[at++] = speed[static_cast<std::size_t>(a)];
  for (std::size_t c = 0; c < m.initial_density.values().size(); ++c) m.initial_density.values()[c] = uniform01(9, 0, c);
  Smoke3 system(m);
  SmokeLoss3 loss(m, {});
  Rollout rollout(system, loss, s.steps, {});
  rollout.loss();
  const ConstFields3View f = fields_of(g, rollout.final_state());
  double worst = 0.0;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        auto wrap = [](int x, int count) { return ((x % count) + count) % count; };
        const Index from = g.cell(wrap(i - s.steps, n[0]), wrap(j + s.steps, n[1]), wrap(k - 2 * s.steps, n[2]));
        worst = std::max(worst, std::abs(f.density[static_cast<std::size_t>(g.cell(i, j, k))] -
                                         m.initial_density.values()[static_cast<std::size_t>(from)]));
      }
  EXPECT_LT(worst, 1e-12);
}

// Forward results and gradients are the same bits for 1, 2 and 4 threads and every checkpoint
// policy, on a grid large enough for the parallel loops and the slab-coloured adjoint to split.
TEST(Smoke3d, DeterministicAcrossThreadsAndCheckpointPolicies) {
  auto run = [](int threads, const char* policy) {
    set_thread_count(threads);
    SmokeModel3 m = small_room({16, 12, 24}, 3, 1e-6);
    Smoke3 system(m);
    SmokeLoss3 loss(m, small_loss(m));
    RolloutOptions o;
    o.checkpoint = CheckpointPolicy::parse(policy);
    tune::RolloutProblem problem(system, loss, m.settings.steps, o, all_parameters(m));
    std::vector<double> g(problem.dimension());
    problem.value_and_gradient(problem.initial(), g);
    return testing::Hashes{testing::hash_doubles(problem.rollout().final_state()), testing::hash_doubles(g)};
  };
  const testing::Hashes reference = run(1, "all");
  for (int threads : {1, 2, 4})
    for (const char* policy : {"all", "every:2", "binomial:2"})
      EXPECT_EQ(run(threads, policy), reference) << threads << " " << policy;
  set_thread_count(0);
}

}  // namespace
}  // namespace simgrad::fluid
