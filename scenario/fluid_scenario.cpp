#include "scenario/fluid_scenario.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/fluid_frames.hpp"
#include "scenario/fluid3d_scenario.hpp"
#include "scenario/tuned_parameter.hpp"
#include "sims/fluid/boundary_vent.hpp"
#include "sims/fluid/density_image.hpp"
#include "sims/fluid/losses.hpp"
#include "sims/fluid/smoke.hpp"
#include "sims/fluid/solid_shape.hpp"
#include "sims/fluid/tunables.hpp"

namespace simgrad::scenario {

namespace fl = simgrad::fluid;

double fluid_default(std::string_view name) { return tunable_default(fl::smoke_tunables<fl::Grid3>(), name); }

// An advection scheme by its scenario name.
fl::AdvectionScheme advection_scheme(const std::string& name) {
  if (name == "maccormack") return fl::AdvectionScheme::kMacCormack;
  if (name == "conservative") return fl::AdvectionScheme::kConservative;
  return fl::AdvectionScheme::kSemiLagrangian;
}

fl::Side read_side(const ScenarioNode& sides, std::string_view key) {
  const std::string s = sides.choice(key, {"closed", "open", "periodic"}, "closed");
  return s == "closed" ? fl::Side::kClosed : s == "open" ? fl::Side::kOpen : fl::Side::kPeriodic;
}

fl::SmokeSettings read_smoke_settings(const ScenarioNode& root, int steps, double cell_size, int dimensions) {
  fl::SmokeSettings s;
  s.steps = steps;
  s.dt = root.positive("dt");
  s.buoyancy = root.number("buoyancy", 0.0);
  s.weight = root.number("weight", 0.0);
  s.viscosity = root.non_negative("viscosity", 0.0);
  if (s.viscosity * s.dt / (cell_size * cell_size) > 0.25)
    root.fail("viscosity", "explicit viscosity is unstable: needs viscosity dt / cell_size^2 <= 0.25");
  if (auto p = root.optional_child("pressure")) {
    const std::string solver = p->choice("solver", {"cg", "jacobi"}, "cg");
    s.pressure.solver = solver == "cg" ? fl::PressureSolver::kConjugateGradient : fl::PressureSolver::kJacobi;
    s.pressure.tolerance = p->positive("tolerance", s.pressure.tolerance);
    s.pressure.jacobi_iterations = static_cast<int>(p->integer("iterations", 1, 100000, s.pressure.jacobi_iterations));
  }
  // Velocity by semi-Lagrangian or MacCormack; smoke and temperature the same unless said.
  const std::string advection = root.choice("advection", {"semi_lagrangian", "maccormack"}, "semi_lagrangian");
  s.velocity_advection = advection_scheme(advection);
  s.carried_advection =
      advection_scheme(root.choice("carried_advection", {"semi_lagrangian", "maccormack", "conservative"}, advection));
  if (dimensions == 3 && s.carried_advection == fl::AdvectionScheme::kConservative)
    root.fail("carried_advection", "conservative advection is 2D only; 3D grids take semi_lagrangian or maccormack");
  if (dimensions == 2)
    s.backtrace = root.choice("backtrace", {"midpoint", "euler"}, "midpoint") == "euler" ? fl::Backtrace::kEuler
                                                                                       : fl::Backtrace::kMidpoint;
  s.confinement = root.has("vorticity_confinement");
  return s;
}

std::vector<double> read_schedule(const ScenarioNode& node, std::string_view key, int knots, double fallback) {
  if (!node.has(key)) return std::vector<double>(static_cast<std::size_t>(knots), fallback);
  if (node.member(key).json().is_number()) return std::vector<double>(static_cast<std::size_t>(knots), node.number(key));
  return node.numbers(key, static_cast<std::size_t>(knots));
}

// "sources": emitters and interior vents.
template <class Model>
void read_interior_sources(const ScenarioNode& root, Model& model, int dimensions, int knots);

template <class Model>
void read_fluid_sources(const ScenarioNode& root, Model& model, int dimensions) {
  const int knots = static_cast<int>(root.integer("schedule_knots", 1, 1000, 1));
  model.set_knots(knots);
  if (root.has("sources")) read_interior_sources(root, model, dimensions, knots);
  read_fluid_vents(root, model, dimensions);
}

template <class Model>
void read_interior_sources(const ScenarioNode& root, Model& model, int dimensions, int knots) {
  for (const ScenarioNode& node : root.array("sources")) {
    const ScenarioNode src = node.as_object();
    const std::vector<double> at = src.numbers("position", static_cast<std::size_t>(dimensions));
    const std::string name = src.string("name", "source " + std::to_string(model.source_count()));
    model.add_source(name, {at[0], at[1], dimensions == 3 ? at[2] : 0.0}, src.positive("radius"),
                     src.non_negative("density_rate", fluid_default("density_rate")),
                     src.non_negative("temperature_rate", fluid_default("temperature_rate")), 0.0, 0.0, 0.0);
    const std::size_t first = static_cast<std::size_t>((model.source_count() - 1) * knots);
    auto schedule = [&](Array<1>& q, const char* key, double fallback) {
      const std::vector<double> values = read_schedule(src, key, knots, fallback);
      std::copy(values.begin(), values.end(), q.values().begin() + static_cast<std::ptrdiff_t>(first));
    };
    schedule(model.speed, "speed", fluid_default("speed"));
    schedule(model.angle, "angle", fluid_default("angle"));
    if (dimensions == 3) schedule(model.tilt, "tilt", 0.0);
  }
}

template <class Model>
void read_fluid_vents(const ScenarioNode& root, Model& model, int dimensions) {
  if (!root.has("vents")) return;
  const std::size_t along = dimensions == 3 ? 2 : 1;
  // A vent's centre or width along the side: a number in 2D, [first, second] tangent axis in 3D.
  auto pair = [&](const ScenarioNode& node, std::string_view key) -> std::array<double, 2> {
    if (dimensions == 2) return {node.number(key), 0.0};
    const std::vector<double> v = node.numbers(key, along);
    return {v[0], v[1]};
  };
  for (const ScenarioNode& entry : root.array("vents")) {
    const ScenarioNode vent = entry.as_object();
    const std::string side = dimensions == 3 ? vent.choice("side", {"left", "right", "bottom", "top", "front", "back"})
                                             : vent.choice("side", {"left", "right", "bottom", "top"});
    static constexpr std::string_view kSides[6] = {"left", "right", "bottom", "top", "front", "back"};
    const int side_index = static_cast<int>(std::find(std::begin(kSides), std::end(kSides), side) - std::begin(kSides));
    const std::array<double, 2> at = pair(vent, "position"), width = pair(vent, "width");
    const std::string name = vent.string("name", "vent " + std::to_string(model.vent_count()));
    try {
      model.add_boundary_vent(name, side_index, at, width, 0.0,
                              vent.non_negative("density_rate", fluid_default("vent_density_rate")),
                              vent.non_negative("temperature_rate", fluid_default("vent_temperature_rate")));
    } catch (const std::invalid_argument& e) {
      vent.fail(std::string(e.what()).find("width") != std::string::npos ? "width" : "side", e.what());
    }
    // On an open side the footprint enters the pressure matrix, whose parameter derivative only
    // the conjugate-gradient solve's implicit adjoint carries.
    if (model.grid.side(side_index) == fl::Side::kOpen &&
        model.settings.pressure.solver != fl::PressureSolver::kConjugateGradient)
      vent.fail("side", "a vent on an open side needs the \"cg\" pressure solver");
    const std::vector<double> speed = read_schedule(vent, "speed", model.knots, fluid_default("vent_speed"));
    std::copy(speed.begin(), speed.end(),
              model.vent_speed.values().begin() + static_cast<std::ptrdiff_t>((model.vent_count() - 1) * model.knots));
  }
  // Vents that overlap on an open side are refused by the system; named here by field.
  try {
    fl::OpenVentWork().refresh(model);
  } catch (const std::invalid_argument& e) {
    root.fail("vents", e.what());
  }
}

template void read_fluid_sources(const ScenarioNode&, fl::SmokeModel&, int);
template void read_fluid_sources(const ScenarioNode&, fl::SmokeModel3&, int);


template <class Model>
std::unique_ptr<tune::RolloutProblem> read_fluid_problem(const ScenarioNode& root, const ScenarioOverrides& overrides,
                                                         Model& model, System& system, TrajectoryLoss& loss, int steps,
                                                         TuneOptions& tune) {
  const ScenarioNode tune_node = root.child("tune");
  tune = read_tune_options(tune_node);
  std::vector<tune::BoundParameter> bound =
      read_tuned_parameters(tune_node, fl::smoke_tunables<decltype(model.grid)>(), model);
  RolloutOptions options;
  options.checkpoint = read_checkpoint(root, overrides);
  return std::make_unique<tune::RolloutProblem>(system, loss, steps, options, std::move(bound));
}

template std::unique_ptr<tune::RolloutProblem> read_fluid_problem(const ScenarioNode&, const ScenarioOverrides&,
                                                                  fl::SmokeModel&, System&, TrajectoryLoss&, int, TuneOptions&);
template std::unique_ptr<tune::RolloutProblem> read_fluid_problem(const ScenarioNode&, const ScenarioOverrides&,
                                                                  fl::SmokeModel3&, System&, TrajectoryLoss&, int, TuneOptions&);

namespace {

// The grid: "cells": [nx, ny], "cell_size", "sides": {"left", "right", "bottom", "top"} or one
// word for all four.
fl::Grid read_grid(const ScenarioNode& node) {
  const std::vector<std::int64_t> n = node.integers("cells", 2, 2048, 2);
  const double h = node.positive("cell_size");
  fl::Side s[4] = {fl::Side::kClosed, fl::Side::kClosed, fl::Side::kClosed, fl::Side::kClosed};
  if (node.has("sides") && node.member("sides").json().is_string()) {
    const std::string all = node.choice("sides", {"closed", "open", "periodic"});
    for (fl::Side& x : s) x = all == "closed" ? fl::Side::kClosed : all == "open" ? fl::Side::kOpen : fl::Side::kPeriodic;
  } else if (auto sides = node.optional_child("sides")) {
    s[0] = read_side(*sides, "left");
    s[1] = read_side(*sides, "right");
    s[2] = read_side(*sides, "bottom");
    s[3] = read_side(*sides, "top");
    if ((s[0] == fl::Side::kPeriodic) != (s[1] == fl::Side::kPeriodic))
      sides->fail("right", "a periodic side needs its opposite side periodic too");
    if ((s[2] == fl::Side::kPeriodic) != (s[3] == fl::Side::kPeriodic))
      sides->fail("top", "a periodic side needs its opposite side periodic too");
  }
  return fl::Grid(static_cast<int>(n[0]), static_cast<int>(n[1]), h, s[0], s[1], s[2], s[3]);
}

// A shape: {"box": [x0, y0, x1, y1]} or {"circle": [x, y, r]}.
fl::SolidShape read_shape(const ScenarioNode& node) {
  fl::SolidShape s;
  if (node.has("circle")) {
    s.circle = true;
    s.v = node.numbers("circle", 3);
    if (!(s.v[2] > 0.0)) node.fail("circle", "expected a radius > 0");
  } else {
    s.v = node.numbers("box", 4);
    if (!(s.v[2] > s.v[0] && s.v[3] > s.v[1])) node.fail("box", "expected [x0, y0, x1, y1] with x1 > x0 and y1 > y0");
  }
  return s;
}

// The starting smoke: {"checker": block cells, "value"}, {"image": file, "invert", "scale"} or
// {"shapes": [{"box" | "circle", "value"}]}.
std::vector<double> read_density(const ScenarioNode& node, const fl::Grid& g) {
  std::vector<double> d(static_cast<std::size_t>(g.cells()), 0.0);
  if (node.has("checker")) {
    const std::int64_t block = node.integer("checker", 1, 4096);
    const double value = node.non_negative("value", 1.0);
    for (int j = 0; j < g.ny(); ++j)
      for (int i = 0; i < g.nx(); ++i)
        d[static_cast<std::size_t>(g.cell(i, j))] = ((i / block + j / block) % 2 == 0) ? value : 0.0;
  } else if (node.has("image")) {
    try {
      d = fl::image_on_grid(fl::read_pgm(node.existing_file("image")), g, node.boolean("invert", true),
                            node.non_negative("scale", 1.0));
    } catch (const std::runtime_error& e) {
      node.fail("image", e.what());
    }
  } else {
    for (const ScenarioNode& s : node.array("shapes")) {
      const ScenarioNode shape = s.as_object();
      const std::vector<std::uint8_t> m = fl::solid_mask(g, {read_shape(shape)});
      const double value = shape.non_negative("value", 1.0);
      for (std::size_t c = 0; c < m.size(); ++c)
        if (m[c]) d[c] = value;
    }
  }
  return d;
}

class FluidScenario final : public FluidScenarioOf<fl::SmokeModel, fl::Smoke> {
 public:
  FluidScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    steps = static_cast<int>(root.integer("steps", 1, 100000));
    fl::Grid grid = read_grid(root.child("grid"));
    if (root.has("obstacles")) {
      std::vector<fl::SolidShape> shapes;
      std::vector<std::uint8_t> from_images(static_cast<std::size_t>(grid.cells()), 0);
      for (const ScenarioNode& o : root.array("obstacles")) {
        const ScenarioNode obstacle = o.as_object();
        if (!obstacle.has("image")) {
          shapes.push_back(read_shape(obstacle));
          continue;
        }
        // A mask picture stretched over the domain: dark pixels are solid.
        try {
          const std::vector<double> dark = fl::image_on_grid(fl::read_pgm(obstacle.existing_file("image")), grid, true, 1.0);
          for (std::size_t c = 0; c < dark.size(); ++c) from_images[c] |= dark[c] > 0.5 ? 1 : 0;
        } catch (const std::runtime_error& e) {
          obstacle.fail("image", e.what());
        }
      }
      std::vector<std::uint8_t> solid = fl::solid_mask(grid, shapes);
      for (std::size_t c = 0; c < solid.size(); ++c) solid[c] |= from_images[c];
      grid.set_solid(std::move(solid));
    }
    const fl::SmokeSettings s = read_smoke_settings(root, steps, grid.h());
    model_.reset(std::move(grid), s);
    if (s.confinement) model_.confinement.values()[0] = root.non_negative("vorticity_confinement");
    const fl::Grid& g = model_.grid;
    if (auto d = root.optional_child("initial_density")) model_.initial_density.assign(read_density(*d, g), true);
    if (root.has("initial_velocity")) {
      const std::vector<double> v = root.numbers("initial_velocity", 2);
      std::fill_n(model_.initial_velocity.values().begin(), g.u_count(), v[0]);
      std::fill(model_.initial_velocity.values().begin() + g.u_count(), model_.initial_velocity.values().end(), v[1]);
    }
    read_fluid_sources(root, model_, 2);
    set_up(root, overrides, read_loss(root.child("loss")));
  }

  // Split, from the whole final state: every process's rows of it, gathered.
  nlohmann::json summary() override {
    std::span<const double> state = problem_->rollout().final_state();
    if (slabs_ && !state.empty()) {
      system_->gather_state(state, whole_state_);
      state = whole_state_;
    }
    return report::smoke_summary(*system_, *loss_, state);
  }

  // Density per frame as a grey image, obstacles, sources and vents with the flow they drive
  // (report/fluid_frames.hpp).
  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    return report::smoke_frames(*system_, *loss_, steps);
  }

 private:
  fl::SmokeLossSettings read_loss(const ScenarioNode& loss) {
    fl::SmokeLossSettings l;
    const fl::Grid& g = model_.grid;
    if (loss.has("target_image")) {
      try {
        l.target = fl::image_on_grid(fl::read_pgm(loss.existing_file("target_image")), g, loss.boolean("invert", true),
                                     loss.non_negative("target_scale", 1.0));
      } catch (const std::runtime_error& e) {
        loss.fail("target_image", e.what());
      }
      l.image_weight = loss.positive("image_weight", 1.0);
    }
    if (loss.has("region")) {
      const std::vector<double> box = loss.numbers("region", 4);
      if (!(box[2] > box[0] && box[3] > box[1])) loss.fail("region", "expected [x0, y0, x1, y1] with x1 > x0 and y1 > y0");
      l.region = fl::solid_mask(g, {fl::SolidShape{false, box}});
      if (std::none_of(l.region.begin(), l.region.end(), [](std::uint8_t r) { return r != 0; }))
        loss.fail("region", "the region holds no cell centre");
      l.region_step = static_cast<int>(loss.integer("region_step", 0, steps, steps));
      if (loss.has("region_density")) l.region_target = loss.non_negative("region_density");
    }
    if (l.target.empty() && l.region.empty()) loss.fail("target_image", "expected a \"target_image\" or a \"region\"");
    l.smoothness = loss.non_negative("smoothness", 0.0);
    return l;
  }

  std::vector<double> whole_state_;  // split: the gathered final state, for summary()

};

}  // namespace

std::unique_ptr<Scenario> load_fluid_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  const nlohmann::json& cells = root.child("grid").member("cells").json();
  if (cells.is_array() && cells.size() == 3) return load_fluid3d_scenario(root, overrides);
  try {
    return std::make_unique<FluidScenario>(root, overrides);
  } catch (const std::invalid_argument& e) {
    root.fail("grid", e.what());
  }
}

SimulatorInfo fluid_info() {
  SimulatorInfo info;
  info.name = "fluid";
  info.description = "2D and 3D Eulerian smoke on a staggered grid: semi-Lagrangian or MacCormack advection "
                     "(\"advection\", default semi_lagrangian; smoke and temperature follow it unless "
                     "\"carried_advection\" says semi_lagrangian, maccormack or, in 2D, conservative; 2D traces step back by "
                     "the midpoint rule or, with \"backtrace\": \"euler\", one Euler step), buoyancy, "
                     "optional vorticity confinement, viscosity, "
                     "pressure projection (MIC(0)-preconditioned CG with an implicit adjoint, or fixed Jacobi sweeps); "
                     "closed, open and periodic sides, obstacles (3D: boxes, spheres, cylinders), emitters and vents with smooth "
                     "footprints and schedules, boundary vents in closed or open sides (a smooth segment or patch of prescribed inflow)";
  info.tunables = tune::tunable_infos(fl::smoke_tunables<fl::Grid3>());
  info.load = load_fluid_scenario;
  return info;
}

}  // namespace simgrad::scenario
