// Boundary vents in 2D and 3D: the footprint and the vent stage against finite differences,
// whole rollouts' gradients with respect to position, width, speed and carried smoke, physics
// (the flux a vent drives is speed x width; what enters a duct leaves it; the projection keeps
// the divergence at zero with vents on, or uniform when a closed room's vents do not balance),
// and bit-for-bit determinism across thread counts and checkpoint policies.
#include "sims/fluid/boundary_vent.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "../state_hash.hpp"
#include "core/gradcheck.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "core/rollout.hpp"
#include "sims/fluid/forcing.hpp"
#include "sims/fluid/forcing3d.hpp"
#include "sims/fluid/losses.hpp"
#include "sims/fluid/tunables.hpp"
#include "sims/fluid/pressure3d.hpp"
#include "sims/fluid/smoke.hpp"
#include "sims/fluid/smoke.hpp"
#include "stage_check.hpp"

namespace simgrad::fluid {
namespace {

constexpr int kLeft = 0, kRight = 1, kBottom = 2, kTop = 3, kFront = 4;

TEST(BoundaryVent, SegmentWeightDerivativesMatchFiniteDifferences) {
  for (bool periodic : {false, true}) {
    auto weight = [&](std::span<const double> x) { return segment_weight(x[0], x[1], x[2], 0.1, periodic, 1.3).w; };
    for (double s : {0.31, 0.52, 0.68, 1.2}) {
      const std::vector<double> x = {s, 0.5, 0.3};
      const SegmentWeight w = segment_weight(s, x[1], x[2], 0.1, periodic, 1.3);
      const std::vector<double> g = {0.0, w.dcentre, w.dwidth};
      GradCheckOptions o;
      o.rtol = 1e-6;
      o.atol = 1e-10;
      const GradCheckReport r = check_gradient(weight, x, g, o);
      for (std::size_t k = 1; k < 3; ++k) EXPECT_TRUE(r.checks[k].ok) << periodic << " " << s << " " << r.checks[k].label;
    }
  }
}

// The footprint sampled one cell apart sums to width / h wherever the vent sits: its flux does
// not depend on where it is between faces.
TEST(BoundaryVent, SampledFootprintHoldsTheWidthAtAnyPosition) {
  const double h = 0.1;
  for (double centre : {1.0, 1.013, 1.05, 1.077}) {
    double sum = 0.0;
    for (int k = 0; k < 40; ++k) sum += segment_weight((k + 0.5) * h, centre, 0.37, h, false, 4.0).w;
    EXPECT_NEAR(sum * h, 0.37, 0.37 * 3e-4) << centre;
  }
}

// The vented rooms' settings: buoyant, with a tight pressure tolerance for finite differences.
SmokeSettings room_settings(int steps, double viscosity) {
  SmokeSettings s;
  s.dt = 0.04;
  s.steps = steps;
  s.buoyancy = 0.8;
  s.viscosity = viscosity;
  s.pressure.tolerance = 1e-13;
  return s;
}

// A 2D room: closed on the left and below, open on the right and above; a solid cell next to
// the left wall inside the inlet's footprint; an inlet on the left carrying smoke and heat, an
// outlet drawing out through the floor, an emitter; buoyancy and viscosity.
SmokeModel vented_room(int nx, int ny, int steps) {
  SmokeModel m;
  const SmokeSettings s = room_settings(steps, 0.01);
  const double h = 1.0 / nx;
  Grid g(nx, ny, h, Side::kClosed, Side::kOpen, Side::kClosed, Side::kOpen);
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(g.cells()), 0);
  solid[static_cast<std::size_t>(g.cell(0, ny / 2))] = 1;
  g.set_solid(solid);
  m.reset(g, s);
  for (std::size_t k = 0; k < m.initial_velocity.values().size(); ++k) m.initial_velocity.values()[k] = 0.2 * standard_normal(15, 0, k);
  m.add_source("emitter", 0.55, 0.3, 0.15, 1.0, 0.0, 0.3, 1.4);
  m.add_boundary_vent("inlet", kLeft, {0.47 * ny * h, 0.0}, {0.33 * ny * h, 0.0}, 0.8, 1.5, 0.6);
  m.add_boundary_vent("outlet", kBottom, {0.62, 0.0}, {0.27, 0.0}, -0.4, 0.0, 0.0);
  m.set_knots(3);
  m.vent_speed.assign({0.8, 1.0, 0.7, -0.4, -0.3, -0.5}, true);
  return m;
}

SmokeLossSettings region_loss(const SmokeModel& m) {
  SmokeLossSettings l;
  l.region.assign(static_cast<std::size_t>(m.grid.cells()), 0);
  for (int j = 2; j < 5; ++j)
    for (int i = 2; i < 6; ++i) l.region[static_cast<std::size_t>(m.grid.cell(i, j))] = 1;
  l.region_target = 0.8;
  l.smoothness = 0.1;
  return l;
}

template <class Model>
std::vector<tune::BoundParameter> vent_parameters(Model& m, std::initializer_list<const char*> names) {
  std::vector<tune::BoundParameter> b;
  for (const char* name : names) {
    b.push_back(tune::bind(smoke_tunables<decltype(m.grid)>(), m, name, {}));
  }
  return b;
}

// A model's vent parameters as one vector: their initial values, assigning a vector to them,
// and gathering their gradient from the model's adjoints.
struct VentVector {
  std::vector<tune::BoundParameter> params;
  std::vector<double> x;

  template <class Model>
  VentVector(Model& m, std::initializer_list<const char*> names) : params(vent_parameters(m, names)) {
    for (const auto& p : params) x.insert(x.end(), p.parameter.initial.begin(), p.parameter.initial.end());
  }
  void assign(std::span<const double> y) {
    std::size_t at = 0;
    for (auto& p : params) {
      p.assign(y.subspan(at, p.parameter.initial.size()));
      at += p.parameter.initial.size();
    }
  }
  std::vector<double> gradient() {
    std::vector<double> g;
    for (auto& p : params) {
      std::vector<double> part(p.parameter.initial.size());
      p.gradient(part);
      g.insert(g.end(), part.begin(), part.end());
    }
    return g;
  }
};

const std::initializer_list<const char*> kVent2 = {"vent_position", "vent_width", "vent_speed", "vent_density_rate",
                                                    "vent_temperature_rate"};
const std::initializer_list<const char*> kVent3 = {"vent_position", "vent_position2",    "vent_width",
                                                    "vent_width2",   "vent_speed",        "vent_density_rate",
                                                    "vent_temperature_rate"};

// Sets every wall face to zero, as the step does before the vents.
void zero_wall_faces(const Grid& g, std::span<double> state) {
  const FieldsView f = fields_of(g, state);
  zero_walls(g, f.velocity);
}
void zero_wall_faces(const Grid3& g, std::span<double> state) { zero_walls(g, fields_of(g, state).velocity); }

// Checks the vent stage's parameter adjoints by finite differences, for the model's grid.
template <class Model>
void check_vent_stage_gradient(Model& m, std::initializer_list<const char*> names, int t) {
  const std::size_t n = static_cast<std::size_t>(m.state_size());
  const std::vector<double> w = random_values(n, 91, 1.0);
  std::vector<double> base = random_values(n, 92, 0.5);
  zero_wall_faces(m.grid, base);
  VentVector vents(m, names);
  auto f = [&](std::span<const double> y) {
    vents.assign(y);
    std::vector<double> state = base;
    apply_boundary_vents(m, t, fields_of(m.grid, std::span<double>(state)));
    return dot(w, state);
  };
  vents.assign(vents.x);
  m.clear_adjoints();
  std::vector<double> a = w;
  apply_boundary_vents_adjoint(m, t, fields_of(m.grid, std::span<double>(a)));
  const std::vector<double> g = vents.gradient();
  // f sums a few hundred terms of order one: rounding over the step is about 1e-8.
  GradCheckOptions o;
  o.rtol = 1e-6;
  o.atol = 1e-7;
  const GradCheckReport r = check_gradient(f, vents.x, g, o);
  for (const GradCheckEntry& e : r.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
}

// A vented rollout's final state and gradient (over the vents' parameters `names`) are the same
// bits with 1, 2 and 4 threads under each checkpoint policy as with one thread storing all.
template <class System, class Loss, class Model>
void expect_same_bits(const std::function<Model()>& make, const std::function<SmokeLossSettings(const Model&)>& loss_of,
                      std::initializer_list<const char*> names, std::initializer_list<const char*> policies) {
  auto run = [&](int threads, const char* policy) {
    set_thread_count(threads);
    Model m = make();
    System system(m);
    Loss loss(m, loss_of(m));
    RolloutOptions o;
    o.checkpoint = CheckpointPolicy::parse(policy);
    tune::RolloutProblem problem(system, loss, m.settings.steps, o, vent_parameters(m, names));
    std::vector<double> g(problem.dimension());
    problem.value_and_gradient(problem.initial(), g);
    return testing::Hashes{testing::hash_doubles(problem.rollout().final_state()), testing::hash_doubles(g)};
  };
  const testing::Hashes reference = run(1, "all");
  for (int threads : {1, 2, 4})
    for (const char* policy : policies) EXPECT_EQ(run(threads, policy), reference) << threads << " " << policy;
  set_thread_count(0);
}

TEST(BoundaryVent, StageGradientMatchesFiniteDifferences2d) {
  SmokeModel m = vented_room(8, 6, 10);
  for (int t : {0, 4, 9}) check_vent_stage_gradient(m, kVent2, t);
}

// The whole rollout's gradient with respect to the vents' parameters, one by one, and the
// initial velocity in random directions.
TEST(BoundaryVent, RolloutGradientMatchesFiniteDifferences2d) {
  SmokeModel m = vented_room(8, 6, 8);
  Smoke system(m);
  SmokeLoss loss(m, region_loss(m));
  std::vector<tune::BoundParameter> params = vent_parameters(m, kVent2);
  const std::size_t vents = [&] {
    std::size_t n = 0;
    for (const auto& p : params) n += p.parameter.initial.size();
    return n;
  }();
  params.push_back(tune::bind(smoke_tunables<decltype(m.grid)>(), m, "initial_velocity", {}));
  tune::RolloutProblem problem(system, loss, m.settings.steps, {}, std::move(params));
  check_problem_gradient(problem, vents, 3);
}

// The net outflow through the open sides of a grid's velocity, per unit depth.
double open_side_outflow(const Grid& g, std::span<const double> state) {
  const ConstFieldsView f = fields_of(g, state);
  double out = 0.0;
  for (int j = 0; j < g.ny(); ++j) {
    if (g.side(kLeft) == Side::kOpen) out -= f.velocity[0][static_cast<std::size_t>(g.u_face(0, j))] * g.h();
    if (g.side(kRight) == Side::kOpen) out += f.velocity[0][static_cast<std::size_t>(g.u_face(g.nx(), j))] * g.h();
  }
  for (int i = 0; i < g.nx(); ++i) {
    if (g.side(kBottom) == Side::kOpen) out -= f.velocity[1][static_cast<std::size_t>(g.v_face(i, 0))] * g.h();
    if (g.side(kBottom + 1) == Side::kOpen) out += f.velocity[1][static_cast<std::size_t>(g.v_face(i, g.ny()))] * g.h();
  }
  return out;
}

// The largest |divergence| over the cells of a state's velocity, and its mean.
void divergence_of(const Smoke& system, const Grid& g, std::span<const double> state, double& largest, double& mean) {
  const ConstFieldsView f = fields_of(g, state);
  std::vector<double> div(static_cast<std::size_t>(g.cells()));
  system.projection().divergence(f.velocity, div);
  largest = 0.0;
  mean = 0.0;
  for (double d : div) {
    largest = std::max(largest, std::abs(d));
    mean += d / static_cast<double>(div.size());
  }
}

// A duct: a vent in the closed left wall blows in, the right side is open. At every step the
// outflow through the open side equals the inflow, which is speed x width (a closed form: the
// footprint's integral), and every cell is divergence-free.
TEST(BoundaryVent, DuctOutflowEqualsInflow) {
  SmokeModel m;
  SmokeSettings s;
  s.dt = 0.02;
  s.steps = 30;
  s.pressure.tolerance = 1e-12;
  const double h = 1.0 / 16;
  m.reset(Grid(24, 12, h, Side::kClosed, Side::kOpen, Side::kClosed, Side::kClosed), s);
  const double speed = 1.3, width = 4.3 * h;
  m.add_boundary_vent("inlet", kLeft, {6.2 * h, 0.0}, {width, 0.0}, speed, 1.0, 0.0);
  EXPECT_NEAR(net_vent_inflow(m, 0), speed * width, 3e-4 * speed * width);
  Smoke system(m);
  SmokeLoss loss(m, {{}, 1.0, std::vector<std::uint8_t>(static_cast<std::size_t>(m.grid.cells()), 1), -1, {}, 0.0});
  RolloutOptions o;
  int checked = 0;
  o.observer = [&](int t, std::span<const double> state) {
    if (t == 0) return;
    EXPECT_NEAR(open_side_outflow(m.grid, state), net_vent_inflow(m, t), 1e-9 * speed * width) << t;
    EXPECT_NEAR(open_side_outflow(m.grid, state), speed * width, 3e-4 * speed * width) << t;
    double largest, mean;
    divergence_of(system, m.grid, state, largest, mean);
    EXPECT_LT(largest, 1e-8) << t;
    ++checked;
  };
  Rollout(system, loss, s.steps, o).loss();
  EXPECT_EQ(checked, s.steps);
}

// A closed room whose two vents balance (in on the left, out on the right, alike) stays
// divergence-free; with the outlet shut, the net inflow spreads evenly: every cell's divergence
// is the inflow over the room's area (the projection removes the mean, pressure.hpp).
TEST(BoundaryVent, ClosedRoomBalancesOrSpreadsTheNetInflow) {
  for (double outlet : {-0.9, 0.0}) {
    SmokeModel m;
    SmokeSettings s;
    s.dt = 0.02;
    s.steps = 5;
    s.pressure.tolerance = 1e-12;
    const double h = 0.1;
    m.reset(Grid(10, 8, h, Side::kClosed, Side::kClosed, Side::kClosed, Side::kClosed), s);
    m.add_boundary_vent("in", kLeft, {0.4, 0.0}, {0.3, 0.0}, 0.9, 0.0, 0.0);
    m.add_boundary_vent("out", kRight, {0.4, 0.0}, {0.3, 0.0}, outlet, 0.0, 0.0);
    Smoke system(m);
    const std::vector<double> s0(static_cast<std::size_t>(m.state_size()), 0.0);
    std::vector<double> s1(s0.size());
    system.step(0, s0, s1, {});
    double largest, mean;
    divergence_of(system, m.grid, s1, largest, mean);
    const double expected = -net_vent_inflow(m, 0) / (m.grid.width() * m.grid.height());
    if (outlet != 0.0) EXPECT_LT(largest, 1e-9);
    else {
      EXPECT_NEAR(expected, -0.9 * 0.3 / 0.8, 1e-3);
      // The divergence (outflow per area) is uniform: minus the net inflow over the area.
      EXPECT_NEAR(mean, expected, 1e-9);
      EXPECT_NEAR(largest, std::abs(expected), 1e-9);
    }
  }
}

// Forward results and gradients are the same bits for 1, 2 and 4 threads and every checkpoint
// policy, with boundary vents on a grid large enough for the parallel loops to split.
TEST(BoundaryVent, DeterministicAcrossThreadsAndCheckpointPolicies) {
  expect_same_bits<Smoke, SmokeLoss, SmokeModel>(
      [] {
        SmokeModel m = vented_room(40, 40, 4);  // four blocks of cells: two threads split them
        m.settings.pressure.tolerance = 1e-8;
        m.settings.viscosity = 0.0;
        return m;
      },
      region_loss, kVent2, {"all", "every:2", "binomial:2"});
}

// A 3D room: open above; a patch vent in the left wall blowing in with smoke and heat, one in
// the front wall drawing out.
// The room is 1.25 m x 1 m x 1 m: 5 x 4 x 4 cells, or `refine` times as many along each axis.
SmokeModel3 vented_room3(int steps, int refine = 1) {
  SmokeModel3 m;
  const SmokeSettings s = room_settings(steps, 0.0);
  Grid3 g({5 * refine, 4 * refine, 4 * refine}, 0.25 / refine, {Side::kClosed, Side::kClosed, Side::kClosed, Side::kOpen, Side::kClosed, Side::kClosed});
  m.reset(g, s);
  for (std::size_t k = 0; k < m.initial_velocity.values().size(); ++k) m.initial_velocity.values()[k] = 0.2 * standard_normal(25, 0, k);
  m.add_boundary_vent("inlet", kLeft, {0.45, 0.52}, {0.4, 0.45}, 0.7, 1.2, 0.5);
  m.add_boundary_vent("outlet", kFront, {0.7, 0.4}, {0.45, 0.35}, -0.3, 0.0, 0.0);
  m.set_knots(2);
  m.vent_speed.assign({0.7, 0.9, -0.3, -0.45}, true);
  return m;
}

SmokeLossSettings region_loss3(const SmokeModel3& m) {
  SmokeLossSettings l;
  l.region.assign(static_cast<std::size_t>(m.grid.cells()), 0);
  for (int k = 1; k < 3; ++k)
    for (int j = 1; j < 3; ++j)
      for (int i = 1; i < 4; ++i) l.region[static_cast<std::size_t>(m.grid.cell(i, j, k))] = 1;
  l.region_target = 0.5;
  l.smoothness = 0.1;
  return l;
}

TEST(BoundaryVent, StageGradientMatchesFiniteDifferences3d) {
  SmokeModel3 m = vented_room3(10);
  for (int t : {0, 7}) check_vent_stage_gradient(m, kVent3, t);
}

// A whole rollout's gradient with respect to the vents' parameters `names`, one by one.
template <class System, class Loss, class Model>
void check_vent_rollout_gradient(Model& m, const SmokeLossSettings& loss_settings, std::initializer_list<const char*> names) {
  System system(m);
  Loss loss(m, loss_settings);
  tune::RolloutProblem problem(system, loss, m.settings.steps, {}, vent_parameters(m, names));
  check_problem_gradient(problem, problem.dimension(), 0);
}

TEST(BoundaryVent, RolloutGradientMatchesFiniteDifferences3d) {
  SmokeModel3 m = vented_room3(5);
  check_vent_rollout_gradient<Smoke3, SmokeLoss3>(m, region_loss3(m), kVent3);
}

// A 3D duct: a patch in the closed left wall blows in, the top is open; after each step the
// outflow through the top is the patch's speed x width x width2 and the cells are
// divergence-free.
TEST(BoundaryVent, DuctOutflowEqualsInflow3d) {
  SmokeModel3 m;
  SmokeSettings s;
  s.dt = 0.02;
  s.steps = 6;
  s.pressure.tolerance = 1e-12;
  const double h = 0.1;
  m.reset(Grid3({8, 8, 8}, h, {Side::kClosed, Side::kClosed, Side::kClosed, Side::kOpen, Side::kClosed, Side::kClosed}), s);
  const double speed = 0.8, wy = 0.33, wz = 0.38;
  m.add_boundary_vent("inlet", kLeft, {0.39, 0.41}, {wy, wz}, speed, 0.0, 0.0);
  Smoke3 system(m);
  SmokeLoss3 loss(m, {{}, 1.0, std::vector<std::uint8_t>(static_cast<std::size_t>(m.grid.cells()), 1), -1, {}, 0.0});
  RolloutOptions o;
  o.observer = [&](int t, std::span<const double> state) {
    if (t == 0) return;
    const ConstFields3View f = fields_of(m.grid, state);
    const Lattice3 top = m.grid.face_lattice(1);
    double out = 0.0;
    for (int k = 0; k < 8; ++k)
      for (int i = 0; i < 8; ++i) out += f.velocity[1][static_cast<std::size_t>(top.index(i, 8, k))] * h * h;
    EXPECT_NEAR(out, net_vent_inflow(m, t), 1e-9 * speed * wy * wz) << t;
    // The soft edges lose a little flux to the nearby walls of this small duct.
    EXPECT_NEAR(out, speed * wy * wz, 1e-2 * speed * wy * wz) << t;
    std::vector<double> div(static_cast<std::size_t>(m.grid.cells()));
    system.projection().divergence(f.velocity, div);
    for (double d : div) EXPECT_LT(std::abs(d), 1e-8);
  };
  Rollout(system, loss, s.steps, o).loss();
}

TEST(BoundaryVent, DeterministicAcrossThreads3d) {
  // 10 x 8 x 8 cells: two blocks, which two threads split.
  expect_same_bits<Smoke3, SmokeLoss3, SmokeModel3>([] { return vented_room3(4, 2); }, region_loss3, kVent3,
                                                     {"all", "binomial:2"});
}

// A periodic side has no boundary to hold a vent; a width must be positive; vents on open sides
// need the conjugate-gradient solver, whose adjoint the footprint's matrix terms join, and must
// not overlap.
TEST(BoundaryVent, RejectsPeriodicSidesBadWidthsAndJacobiOnOpenSides) {
  SmokeModel m = vented_room(8, 6, 4);
  EXPECT_THROW(m.add_boundary_vent("slit", kLeft, {0.3, 0.0}, {0.0, 0.0}, 1.0, 0.0, 0.0), std::invalid_argument);
  SmokeModel ring;
  ring.reset(Grid(8, 6, 0.1, Side::kPeriodic, Side::kPeriodic, Side::kClosed, Side::kOpen), {});
  EXPECT_THROW(ring.add_boundary_vent("seam", kLeft, {0.3, 0.0}, {0.2, 0.0}, 1.0, 0.0, 0.0), std::invalid_argument);
  ring.add_boundary_vent("window", kBottom + 1, {0.3, 0.0}, {0.2, 0.0}, 1.0, 0.0, 0.0);
  ring.settings.pressure.solver = PressureSolver::kJacobi;
  EXPECT_THROW(Smoke{ring}, std::invalid_argument);
  // Two vents over the same stretch of an open side would make the pressure matrix indefinite.
  ring.settings.pressure.solver = PressureSolver::kConjugateGradient;
  EXPECT_NO_THROW(Smoke{ring});
  ring.add_boundary_vent("second", kBottom + 1, {0.32, 0.0}, {0.2, 0.0}, 1.0, 0.0, 0.0);
  EXPECT_THROW(Smoke{ring}, std::invalid_argument);
}

// Vents on open sides: the footprint blends each face between the open side (p = 0 outside) and a
// wall with the vent's flux, in the velocity and in the pressure matrix.

// A 2D room closed on the left and below, open on the right and above: an exhaust fan in the
// open right side, a supply grille carrying smoke and heat in the open top, an inlet in the
// closed left wall, an emitter; buoyancy and viscosity; a random initial velocity, so that the
// open faces carry flow of their own when the vents blend in.
SmokeModel open_vented_room(int nx, int ny, int steps) {
  SmokeModel m;
  const SmokeSettings s = room_settings(steps, 0.01);
  const double h = 1.0 / nx, height = ny * h;
  m.reset(Grid(nx, ny, h, Side::kClosed, Side::kOpen, Side::kClosed, Side::kOpen), s);
  for (std::size_t k = 0; k < m.initial_velocity.values().size(); ++k) m.initial_velocity.values()[k] = 0.2 * standard_normal(35, 0, k);
  m.add_source("emitter", 0.45, 0.3, 0.15, 1.0, 0.0, 0.3, 1.4);
  m.add_boundary_vent("fan", kRight, {0.52 * height, 0.0}, {0.35 * height, 0.0}, -0.6, 0.0, 0.0);
  m.add_boundary_vent("grille", kTop, {0.38, 0.0}, {0.3, 0.0}, 0.5, 1.2, 0.4);
  m.add_boundary_vent("inlet", kLeft, {0.4 * height, 0.0}, {0.3 * height, 0.0}, 0.4, 0.0, 0.0);
  m.set_knots(2);
  m.vent_speed.assign({-0.6, -0.8, 0.5, 0.7, 0.4, 0.3}, true);
  return m;
}

// A 3D room open above (y high) and at the front (z low): a fan drawing out through the top, a
// grille blowing in through the front, an inlet in the closed left wall.
SmokeModel3 open_vented_room3(int steps, int refine = 1) {
  SmokeModel3 m;
  const SmokeSettings s = room_settings(steps, 0.0);
  m.reset(Grid3({5 * refine, 4 * refine, 4 * refine}, 0.25 / refine,
                {Side::kClosed, Side::kClosed, Side::kClosed, Side::kOpen, Side::kOpen, Side::kClosed}),
          s);
  for (std::size_t k = 0; k < m.initial_velocity.values().size(); ++k) m.initial_velocity.values()[k] = 0.2 * standard_normal(45, 0, k);
  m.add_boundary_vent("fan", kTop, {0.6, 0.5}, {0.45, 0.4}, -0.5, 0.0, 0.0);
  m.add_boundary_vent("grille", kFront, {0.55, 0.45}, {0.4, 0.35}, 0.6, 1.1, 0.5);
  m.add_boundary_vent("inlet", kLeft, {0.45, 0.52}, {0.4, 0.45}, 0.3, 0.0, 0.0);
  m.set_knots(2);
  m.vent_speed.assign({-0.5, -0.7, 0.6, 0.4, 0.3, 0.35}, true);
  return m;
}

// The projection of a state's velocity and its adjoint, for either grid.
void project_state(Projection& p, const Grid& g, std::span<double> state) {
  const FieldsView f = fields_of(g, state);
  p.project(f.velocity);
}
void project_state(Projection3& p, const Grid3& g, std::span<double> state) { p.project(fields_of(g, state).velocity); }
void project_state_adjoint(Projection& p, const Grid& g, std::span<double> a) {
  const FieldsView f = fields_of(g, a);
  p.project_adjoint(f.velocity);
}
void project_state_adjoint(Projection3& p, const Grid3& g, std::span<double> a) { p.project_adjoint(fields_of(g, a).velocity); }

// Checks the vents followed by the projection, F(theta) = P(theta) V(theta) s, whose footprint
// enters the matrix on open sides: the parameter adjoints with the replay against finite
// differences.
template <class Projector, class Model>
void check_open_vent_stage_gradient(Model& m, std::initializer_list<const char*> names, int t) {
  const std::size_t n = static_cast<std::size_t>(m.state_size()), faces = static_cast<std::size_t>(m.grid.face_count());
  const std::vector<double> w = random_values(n, 93, 1.0);
  std::vector<double> base = random_values(n, 94, 0.5);
  zero_wall_faces(m.grid, base);
  VentVector vents(m, names);
  std::vector<double> scale;
  // The projector for the vents' current footprint and the projected state.
  auto forward = [&](Projector& projector, std::vector<double>& state) {
    open_vent_face_scale(m, scale);
    projector.set_open_face_scale(scale);
    state = base;
    apply_boundary_vents(m, t, fields_of(m.grid, std::span<double>(state)));
    project_state(projector, m.grid, state);
  };
  auto f = [&](std::span<const double> y) {
    vents.assign(y);
    Projector projector(m.grid, m.settings.pressure);
    std::vector<double> state;
    forward(projector, state);
    return dot(w, state);
  };
  vents.assign(vents.x);
  m.clear_adjoints();
  Projector projector(m.grid, m.settings.pressure);
  std::vector<double> state;
  forward(projector, state);
  std::vector<double> record(static_cast<std::size_t>(2 * open_vent_faces(m)));
  record_open_vent_velocity(m, base, record);
  record_open_vent_pressure(m, projector.pressure(), record);
  std::vector<double> a = w;
  project_state_adjoint(projector, m.grid, a);
  apply_boundary_vents_adjoint(m, t, fields_of(m.grid, std::span<double>(a)),
                               {record, std::span<const double>(w.data(), faces), projector.pressure()});
  const std::vector<double> g = vents.gradient();
  GradCheckOptions o;
  o.rtol = 1e-5;
  o.atol = 1e-7;
  const GradCheckReport r = check_gradient(f, vents.x, g, o);
  for (const GradCheckEntry& e : r.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
}

TEST(OpenSideVent, StageGradientMatchesFiniteDifferences2d) {
  SmokeModel m = open_vented_room(8, 6, 10);
  for (int t : {0, 7}) check_open_vent_stage_gradient<Projection>(m, kVent2, t);
}

TEST(OpenSideVent, StageGradientMatchesFiniteDifferences3d) {
  SmokeModel3 m = open_vented_room3(10);
  check_open_vent_stage_gradient<Projection3>(m, kVent3, 3);
}

// Whole rollouts: every vent parameter (position, width and speed included) one by one.
TEST(OpenSideVent, RolloutGradientMatchesFiniteDifferences2d) {
  SmokeModel m = open_vented_room(8, 6, 8);
  check_vent_rollout_gradient<Smoke, SmokeLoss>(m, region_loss(m), kVent2);
}

TEST(OpenSideVent, RolloutGradientMatchesFiniteDifferences3d) {
  SmokeModel3 m = open_vented_room3(5);
  check_vent_rollout_gradient<Smoke3, SmokeLoss3>(m, region_loss3(m), kVent3);
}

// A channel periodic along x, open below and above, with a grille over the whole open floor
// (its footprint is one on every face): plug flow. From rest one step gives every floor, inner
// and ceiling face the grille's speed (the floor a wall with that flux, the ceiling open) and
// the pressure falls linearly to zero outside the ceiling, p_j = speed h (ny - j). Over a
// longer run with smoke and buoyancy the run matches the same grille in a closed floor.
TEST(OpenSideVent, FullyCoveredOpenFloorIsPlugFlowAndMatchesAClosedFloor) {
  const int nx = 8, ny = 6;
  const double h = 0.125, speed = 0.7;
  auto make = [&](Side floor) {
    SmokeModel m;
    SmokeSettings s;
    s.dt = 0.03;
    s.steps = 6;
    s.buoyancy = 0.5;
    s.pressure.tolerance = 1e-13;
    m.reset(Grid(nx, ny, h, Side::kPeriodic, Side::kPeriodic, floor, Side::kOpen), s);
    m.add_boundary_vent("grille", kBottom, {0.5, 0.0}, {10.0, 0.0}, speed, 0.8, 0.3);
    return m;
  };
  SmokeModel open = make(Side::kOpen), closed = make(Side::kClosed);
  Smoke open_system(open), closed_system(closed);
  std::vector<double> s0(static_cast<std::size_t>(open.state_size())), s1(s0.size());
  open_system.initial_state(s0);
  open_system.step(0, s0, s1, {});
  const ConstFieldsView f = fields_of(open.grid, std::span<const double>(s1));
  for (double u : f.velocity[0]) EXPECT_NEAR(u, 0.0, 1e-12);
  for (double v : f.velocity[1]) EXPECT_NEAR(v, speed, 1e-12);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      EXPECT_NEAR(open_system.projection().pressure()[static_cast<std::size_t>(open.grid.cell(i, j))], speed * h * (ny - j),
                  1e-12);
  SmokeLoss open_loss(open, region_loss(open)), closed_loss(closed, region_loss(closed));
  Rollout open_run(open_system, open_loss, open.settings.steps, {}), closed_run(closed_system, closed_loss, closed.settings.steps, {});
  EXPECT_NEAR(open_run.loss(), closed_run.loss(), 1e-12);
  const std::span<const double> a = open_run.final_state(), b = closed_run.final_state();
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-10) << k;
}

// The same in 3D: a grille over the whole open floor of a box periodic along x and z.
TEST(OpenSideVent, FullyCoveredOpenFloorIsPlugFlow3d) {
  SmokeModel3 m;
  SmokeSettings s;
  s.pressure.tolerance = 1e-13;
  const double h = 0.25, speed = 0.6;
  m.reset(Grid3({4, 5, 4}, h, {Side::kPeriodic, Side::kPeriodic, Side::kOpen, Side::kOpen, Side::kPeriodic, Side::kPeriodic}), s);
  m.add_boundary_vent("grille", kBottom, {0.5, 0.5}, {10.0, 10.0}, speed, 0.0, 0.0);
  Smoke3 system(m);
  std::vector<double> s0(static_cast<std::size_t>(m.state_size())), s1(s0.size());
  system.initial_state(s0);
  system.step(0, s0, s1, {});
  const ConstFields3View f = fields_of(m.grid, std::span<const double>(s1));
  for (int a = 0; a < 3; ++a)
    for (double q : f.velocity[static_cast<std::size_t>(a)]) EXPECT_NEAR(q, a == 1 ? speed : 0.0, 1e-12);
  const Lattice3 cells = m.grid.cell_lattice();
  for (Index c = 0; c < m.grid.cells(); ++c)
    EXPECT_NEAR(system.projection().pressure()[static_cast<std::size_t>(c)], speed * h * (5 - cells.coordinates(c)[1]), 1e-12);
}

// An exhaust fan in an open window: a box closed at the sides, open below and above, a vent
// drawing out over part of the open floor. After a step from rest every cell is
// divergence-free and what leaves through the floor enters through the ceiling; each floor face
// carries the blend W x speed + (1 - W) x (the open side's flow, -p / h from rest), so the faces
// deep under the fan carry its speed (walls with a given flux) and those away from it stay
// open, drawing air in to feed the fan.
TEST(OpenSideVent, FanInAnOpenWindowKeepsItsFluxAndTheRestOpen) {
  SmokeModel m;
  SmokeSettings s;
  s.pressure.tolerance = 1e-13;
  const int nx = 24, ny = 12;
  const double h = 1.0 / 16, speed = -0.9, width = 0.75;
  m.reset(Grid(nx, ny, h, Side::kClosed, Side::kClosed, Side::kOpen, Side::kOpen), s);
  m.add_boundary_vent("fan", kBottom, {0.75, 0.0}, {width, 0.0}, speed, 0.0, 0.0);
  Smoke system(m);
  std::vector<double> s0(static_cast<std::size_t>(m.state_size())), s1(s0.size());
  system.initial_state(s0);
  system.step(0, s0, s1, {});
  double largest, mean;
  divergence_of(system, m.grid, s1, largest, mean);
  EXPECT_LT(largest, 1e-9);
  const ConstFieldsView f = fields_of(m.grid, std::span<const double>(s1));
  double floor = 0.0, ceiling = 0.0, fan = 0.0;
  int core_faces = 0;
  for (int i = 0; i < nx; ++i) {
    const double v = f.velocity[1][static_cast<std::size_t>(m.grid.v_face(i, 0))];
    floor += v * h;
    ceiling += f.velocity[1][static_cast<std::size_t>(m.grid.v_face(i, ny))] * h;
    const double w = segment_weight((i + 0.5) * h, 0.75, width, h, false, m.grid.width()).w;
    const double p = system.projection().pressure()[static_cast<std::size_t>(m.grid.cell(i, 0))];
    EXPECT_NEAR(v, w * speed - (1.0 - w) * p / h, 1e-12) << i;
    fan += w * speed * h;
    if (w > 1.0 - 1e-4) {
      EXPECT_NEAR(v, speed, 1e-3 * std::abs(speed)) << i;
      ++core_faces;
    }
    if (w < 1e-4) {
      EXPECT_GT(v, 0.0) << i;
    }
  }
  EXPECT_GE(core_faces, 2);
  EXPECT_NEAR(floor, ceiling, 1e-10);
  // The fan's own share of the floor's flux is speed x width (the footprint's integral).
  EXPECT_NEAR(fan, speed * width, 3e-4 * std::abs(speed * width));
  // Part of what the fan draws comes back in through the rest of the open floor.
  EXPECT_LT(fan, floor);
  EXPECT_LT(floor, 0.0);
}

// Forward results and gradients are the same bits for 1, 2 and 4 threads and under
// checkpointing, with vents on open sides: the step's record under `all` and its replay under
// binomial:2 hold the same bits.
TEST(OpenSideVent, DeterministicAcrossThreadsAndCheckpointPolicies) {
  expect_same_bits<Smoke, SmokeLoss, SmokeModel>(
      [] {
        SmokeModel m = open_vented_room(40, 40, 4);
        m.settings.pressure.tolerance = 1e-8;
        m.settings.viscosity = 0.0;
        return m;
      },
      region_loss, kVent2, {"all", "binomial:2"});
}

TEST(OpenSideVent, DeterministicAcrossThreads3d) {
  // 10 x 8 x 8 cells: two blocks, which two threads split.
  expect_same_bits<Smoke3, SmokeLoss3, SmokeModel3>([] { return open_vented_room3(4, 2); }, region_loss3, kVent3,
                                                     {"all", "binomial:2"});
}

}  // namespace
}  // namespace simgrad::fluid
