// The smoke grid split over processes in slabs of rows: each process advances its rows and
// fetches the rows its traces and pressure sweeps read across its slab's edges (forward and
// adjoint; advection, buoyancy, viscosity, pressure), and ends with the whole grid's loss, its
// rows of the final state and the whole gradient, bit for bit. Processes are threads here
// (tests/core/threaded_subdomain.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/rollout.hpp"
#include "sims/fluid/losses.hpp"
#include "sims/fluid/smoke.hpp"
#include "tests/core/threaded_subdomain.hpp"

namespace simgrad::fluid {
namespace {

constexpr int kSteps = 24;
constexpr int kColumns = 40, kRows = 37;  // five bands of rows, the last one short

// The box's sides: periodic both ways; a channel (periodic along x, closed at the bottom and
// top); a closed box with a round obstacle; a chimney (closed but for an open top, where the
// y-faces have a row more than the cells: with 40 rows, a band more).
enum class Box { kPeriodic, kChannel, kObstacle, kChimney };

int rows_of(Box box) { return box == Box::kChimney ? 40 : kRows; }

Grid grid_of(Box box) {
  const double h = 1.0 / kColumns;
  const Side p = Side::kPeriodic, c = Side::kClosed;
  switch (box) {
    case Box::kPeriodic: return Grid(kColumns, kRows, h, p, p, p, p);
    case Box::kChannel: return Grid(kColumns, kRows, h, p, p, c, c);
    case Box::kObstacle: {
      Grid g(kColumns, kRows, h, c, c, c, c);
      std::vector<std::uint8_t> solid(static_cast<std::size_t>(g.cells()), 0);
      for (int j = 0; j < kRows; ++j)
        for (int i = 0; i < kColumns; ++i) solid[static_cast<std::size_t>(g.cell(i, j))] = (i - 14) * (i - 14) + (j - 17) * (j - 17) < 25;
      g.set_solid(std::move(solid));
      return g;
    }
    case Box::kChimney: return Grid(kColumns, rows_of(box), h, c, c, c, Side::kOpen);
  }
  return {};
}

// A box with a swirl and a shear strong enough to carry smoke several rows a step (traces reach
// across slabs of one band), a checker of smoke and of heat, Jacobi sweeps; with `forces`,
// buoyancy, weight and viscosity too; with `sources`, an emitter across the slabs' edges (its
// blocks of samples run past them) and a small one low down, with speed schedules.
SmokeModel swirl(bool forces = false, Box box = Box::kPeriodic, bool sources = false) {
  SmokeSettings s;
  if (forces) {
    s.buoyancy = 1.5;
    s.weight = 0.4;
    s.viscosity = 2e-3;
  }
  s.dt = 0.05;
  s.steps = kSteps;
  s.pressure.solver = PressureSolver::kJacobi;
  s.pressure.jacobi_iterations = 5;
  SmokeModel m;
  m.reset(grid_of(box), s);
  const Grid& g = m.grid;
  const double two_pi = 2.0 * std::acos(-1.0);
  for (int j = 0; j < g.ny(); ++j)
    for (int i = 0; i < kColumns; ++i) {
      const double x = (i + 0.5) / kColumns, y = (j + 0.5) / g.ny();
      m.initial_velocity.values()[static_cast<std::size_t>(g.u_face(i, j))] = 1.2 * std::sin(two_pi * y) + 0.3 + 0.2 * std::cos(two_pi * x);
      m.initial_velocity.values()[static_cast<std::size_t>(g.u_count() + g.v_face(i, j))] =
          1.5 * std::sin(two_pi * x) - 0.5 + 0.2 * std::cos(two_pi * y);
      m.initial_density.values()[static_cast<std::size_t>(g.cell(i, j))] = ((i / 5 + j / 4) % 2) ? 0.8 : 0.1;
      m.initial_temperature.values()[static_cast<std::size_t>(g.cell(i, j))] = (i + 2 * j) % 3 == 0 ? 1.0 : 0.0;
    }
  if (sources) {
    m.add_source("emitter", 0.55, 0.6, 0.16, 2.0, 3.0, 1.2, 0.7);
    m.add_source("jet", 0.3, 0.2, 0.1, 1.0, 0.0, 0.8, 2.0);
    m.set_knots(3);
    m.speed.assign({1.2, 0.9, 1.4, 0.8, 0.5, 1.1}, true);
    m.angle.assign({0.7, 0.3, 1.0, 2.0, 2.4, 1.9}, true);
  }
  return m;
}

SmokeLossSettings image_loss(const SmokeModel& m) {
  SmokeLossSettings l;
  for (Index c = 0; c < m.grid.cells(); ++c) l.target.push_back(0.45 + 0.3 * std::sin(0.37 * static_cast<double>(c)));
  std::vector<std::uint8_t> region(static_cast<std::size_t>(m.grid.cells()), 0);
  for (std::size_t c = 0; c < region.size(); c += 3) region[c] = 1;
  l.region = region;
  l.region_step = kSteps / 2;
  l.region_target = 0.5;
  return l;
}

// What one process ends with: the loss, the final state (its rows; the others' are unread) and
// the gradient with respect to the initial velocity, density and temperature (whole).
struct Evaluation {
  double loss = 0.0;
  std::vector<double> state, gradient;
};

Evaluation evaluate(SmokeModel& m, const RowSlabs* slabs, const char* checkpoint) {
  Smoke smoke(m, slabs);
  SmokeLoss loss(m, image_loss(m), slabs);
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(checkpoint);
  Rollout rollout(smoke, loss, kSteps, options);
  Evaluation e;
  e.loss = rollout.loss_and_gradient();
  e.state.assign(rollout.final_state().begin(), rollout.final_state().end());
  for (const Array<1>* a : {&m.initial_velocity, &m.initial_density, &m.initial_temperature, &m.source_x, &m.source_y,
                            &m.source_radius, &m.density_rate, &m.temperature_rate, &m.speed, &m.angle})
    e.gradient.insert(e.gradient.end(), a->adjoints().begin(), a->adjoints().end());
  return e;
}

// Whether every process of every split ends with the whole grid's loss, gradient and its rows'
// final state, bit for bit: advection and pressure sweeps alone, and with buoyancy and
// viscosity.
void expect_whole_bits(bool forces, Box box = Box::kPeriodic, bool sources = false) {
  SmokeModel whole = swirl(forces, box, sources);
  const Evaluation reference = evaluate(whole, nullptr, "all");
  ASSERT_TRUE(std::isfinite(reference.loss));
  // The velocity's and density's gradients are there, and with buoyancy the temperature's (it is
  // carried either way, but without buoyancy the loss does not depend on it).
  const Grid& g = whole.grid;
  const int rows = g.ny();
  const std::size_t cells = static_cast<std::size_t>(g.cells());
  // The state's fields: where each starts, its values a row and its rows.
  struct Field {
    std::size_t offset;
    int columns, rows;
  };
  const std::size_t faces = static_cast<std::size_t>(g.face_count());
  const Field fields[4] = {{0, g.u_columns(), g.ny()},
                           {static_cast<std::size_t>(g.u_count()), kColumns, g.v_rows()},
                           {faces, kColumns, g.ny()},
                           {faces + cells, kColumns, g.ny()}};
  for (std::size_t field = 0; field < (forces ? 4u : 3u); ++field) {
    double size = 0.0;
    const std::size_t count = field + 1 < 4 ? fields[field + 1].offset - fields[field].offset : cells;
    for (std::size_t c = 0; c < count; ++c) size += std::abs(reference.gradient[fields[field].offset + c]);
    ASSERT_GT(size, 0.0) << "field " << field;
  }
  // Every source parameter has a gradient (the last entries: x, y, radius, the two rates, then
  // three speed and three angle knots per source).
  if (sources) {
    const std::size_t groups[7] = {2, 2, 2, 2, 2, 6, 6};
    std::size_t at = reference.gradient.size() - 22;
    for (const std::size_t n : groups) {
      double size = 0.0;
      for (std::size_t k = 0; k < n; ++k) size += std::abs(reference.gradient[at++]);
      ASSERT_GT(size, 0.0) << "source parameters ending at " << at;
    }
  }
  // The first steps' traces move samples more than two rows: halos of several rows.
  {
    const std::span<const double> v0 = whole.initial_velocity.values();
    const std::size_t u_faces = static_cast<std::size_t>(g.u_count());
    ASSERT_GT(trace_reach(g, v0.first(u_faces), v0.subspan(u_faces), whole.settings.dt, g.ny()), 5);
  }
  for (const int processes : {1, 2, 3, 4})
    for (const int threads : {1, 2})
      for (const char* checkpoint : {"all", "binomial:4"}) {
        SCOPED_TRACE(::testing::Message() << processes << " processes x " << threads << " threads, " << checkpoint);
        testing::RowBoard board(processes);
        std::vector<Evaluation> results(static_cast<std::size_t>(processes));
        testing::run_processes(processes, threads, [&](int p) {
          testing::ThreadedRowSlabs split(board, rows, BandScatter::kBandRows, p);
          SmokeModel part = swirl(forces, box, sources);
          results[static_cast<std::size_t>(p)] = evaluate(part, &split, checkpoint);
        });
        for (int p = 0; p < processes; ++p) {
          const Evaluation& e = results[static_cast<std::size_t>(p)];
          EXPECT_EQ(e.loss, reference.loss) << "process " << p;
          for (std::size_t k = 0; k < reference.gradient.size(); ++k)
            ASSERT_EQ(e.gradient[k], reference.gradient[k]) << "process " << p << ", gradient " << k;
          for (std::size_t field = 0; field < 4; ++field) {
            // The process's rows of the field (the last process's run to the field's end).
            RowRun own = slab_of(rows, BandScatter::kBandRows, processes, p);
            if (p + 1 == processes) own.last = fields[field].rows;
            const std::size_t width = static_cast<std::size_t>(fields[field].columns);
            for (std::size_t k = static_cast<std::size_t>(own.first) * width; k < static_cast<std::size_t>(own.last) * width; ++k)
              ASSERT_EQ(e.state[fields[field].offset + k], reference.state[fields[field].offset + k])
                  << "process " << p << ", field " << field << ", value " << k;
          }
        }
      }
}

TEST(SmokeSplit, EveryProcessEndsWithTheWholeGridsBits) { expect_whole_bits(false); }
TEST(SmokeSplit, WithBuoyancyAndViscosityEveryProcessEndsWithTheWholeGridsBits) { expect_whole_bits(true); }
TEST(SmokeSplit, InAChannelEveryProcessEndsWithTheWholeGridsBits) { expect_whole_bits(true, Box::kChannel); }
TEST(SmokeSplit, AroundAnObstacleEveryProcessEndsWithTheWholeGridsBits) { expect_whole_bits(true, Box::kObstacle); }
TEST(SmokeSplit, InAChimneyEveryProcessEndsWithTheWholeGridsBits) { expect_whole_bits(true, Box::kChimney); }
TEST(SmokeSplit, WithSourcesEveryProcessEndsWithTheWholeGridsBits) { expect_whole_bits(true, Box::kPeriodic, true); }
TEST(SmokeSplit, WithSourcesAroundAnObstacleEveryProcessEndsWithTheWholeGridsBits) {
  expect_whole_bits(true, Box::kObstacle, true);
}
TEST(SmokeSplit, WithSourcesInAChimneyEveryProcessEndsWithTheWholeGridsBits) { expect_whole_bits(true, Box::kChimney, true); }

// A value that goes non-finite in one slab stops every process at the same step, each naming
// it as the whole run does.
TEST(SmokeSplit, NonFiniteInOneSlabStopsEveryProcess) {
  auto poisoned = [] {
    SmokeModel m = swirl();
    m.initial_density.values()[static_cast<std::size_t>(m.grid.cell(11, 30))] = std::nan("");
    return m;
  };
  SmokeModel whole = poisoned();
  Index element = -2;
  int step = -2;
  try {
    evaluate(whole, nullptr, "all");
  } catch (const NonFiniteError& e) {
    element = e.element();
    step = e.step();
  }
  ASSERT_GE(element, 2 * whole.grid.cells());  // in the density
  testing::RowBoard board(2);
  std::vector<Index> elements(2, -2);
  std::vector<int> steps(2, -2);
  testing::run_processes(2, 1, [&](int p) {
    testing::ThreadedRowSlabs split(board, kRows, BandScatter::kBandRows, p);
    SmokeModel part = poisoned();
    try {
      evaluate(part, &split, "all");
    } catch (const NonFiniteError& e) {
      elements[static_cast<std::size_t>(p)] = e.element();
      steps[static_cast<std::size_t>(p)] = e.step();
    }
  });
  EXPECT_EQ(elements[0], element);  // rows 0-23: the value is in the other process's rows
  EXPECT_EQ(elements[1], element);
  EXPECT_EQ(steps[0], step);
  EXPECT_EQ(steps[1], step);
}

// Slabs are whole bands, as evenly as bands allow; a halo wraps (where the rows are periodic) and
// skips its own rows.
TEST(SmokeSplit, SlabsAndHalos) {
  EXPECT_EQ(slab_of(37, 8, 2, 0).last, 24);
  EXPECT_EQ(slab_of(37, 8, 2, 1).first, 24);
  EXPECT_EQ(slab_of(37, 8, 2, 1).last, 37);
  EXPECT_THROW(slab_of(37, 8, 6, 0), std::invalid_argument);
  const std::vector<RowRun> slabs = {slab_of(37, 8, 3, 0), slab_of(37, 8, 3, 1), slab_of(37, 8, 3, 2)};
  // Process 0 holds rows 0-15: two rows below wrap to 35-36 (process 2), one above is 16.
  const std::vector<HaloPiece> pieces = halo_pieces(slabs, 0, 2, 1, 37, true);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].owner, 1);
  EXPECT_EQ(pieces[0].first, 16);
  EXPECT_EQ(pieces[0].last, 17);
  EXPECT_EQ(pieces[1].owner, 2);
  EXPECT_EQ(pieces[1].first, 35);
  EXPECT_EQ(pieces[1].last, 37);
  // A halo deeper than the grid is every other row, once.
  Index rows = 0;
  for (const HaloPiece& p : halo_pieces(slabs, 1, 100, 100, 37, true)) rows += p.last - p.first;
  EXPECT_EQ(rows, 37 - slabs[1].count());
  // Closed ends: nothing wraps. In a field of 38 rows (the y-faces of a grid with closed or open
  // ends), row 37 is the last process's.
  EXPECT_TRUE(halo_pieces(slabs, 0, 2, 0, 38, false).empty());
  const std::vector<HaloPiece> top = halo_pieces(slabs, 1, 0, 40, 38, false);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].owner, 2);
  EXPECT_EQ(top[0].first, 32);
  EXPECT_EQ(top[0].last, 38);
  EXPECT_EQ(halo_pieces(slabs, 2, 1, 0, 38, false)[0].first, 31);
}

// What does not split yet is refused, naming it.
TEST(SmokeSplit, RefusesWhatDoesNotSplit) {
  testing::RowBoard board(1);
  testing::ThreadedRowSlabs split(board, kRows, BandScatter::kBandRows, 0);
  SmokeModel m = swirl();
  m.settings.pressure.solver = PressureSolver::kConjugateGradient;
  try {
    Smoke smoke(m, &split);
    ADD_FAILURE() << "a CG solve split";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CG"), std::string::npos) << e.what();
  }
  SmokeModel confined = swirl();
  confined.settings.confinement = true;
  EXPECT_THROW(Smoke(confined, &split), std::invalid_argument);
  // Each process would clip its rows of the state adjoint by their own norm.
  SmokeModel clipped = swirl();
  Smoke smoke(clipped, &split);
  SmokeLoss loss(clipped, image_loss(clipped), &split);
  RolloutOptions options;
  options.clip_adjoint_norm = 1.0;
  EXPECT_THROW(Rollout(smoke, loss, kSteps, options), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::fluid
