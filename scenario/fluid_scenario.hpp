// Scenario files for 2D Eulerian smoke (simulator "fluid"): the grid and its sides, obstacles,
// the starting smoke, emitters and vents with their schedules, the pressure solver, the loss
// (a target picture, a region to fill, a smoothness penalty) and what may be tuned.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <string_view>
#include <vector>

#include "core/band_scatter.hpp"
#include "core/row_slabs.hpp"
#include "scenario/run_export.hpp"
#include "scenario/scenario.hpp"
#include "sims/fluid/losses.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::scenario {

// Reads a fluid scenario from the root of its file.
std::unique_ptr<Scenario> load_fluid_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The simulator's entry in `simgrad list`.
SimulatorInfo fluid_info();

// Pieces shared by the 2D and 3D fluid loaders.
// What a scenario that leaves a tunable quantity out gets, as the tunables table declares it.
double fluid_default(std::string_view name);
// One side's boundary: "closed" (default), "open" or "periodic".
fluid::Side read_side(const ScenarioNode& sides, std::string_view key);
// dt, buoyancy, weight, viscosity (checked for stability), "pressure", the advection schemes
// ("conservative" for smoke and temperature in 2D only) and whether "vorticity_confinement" is on.
fluid::SmokeSettings read_smoke_settings(const ScenarioNode& root, int steps, double cell_size, int dimensions = 2);
// A schedule: one number for all knots, or one per knot.
std::vector<double> read_schedule(const ScenarioNode& node, std::string_view key, int knots, double fallback);
// "schedule_knots" and "sources" (positions of `dimensions` coordinates; "tilt" in 3D).
template <class Model>
void read_fluid_sources(const ScenarioNode& root, Model& model, int dimensions);
// "vents": boundary vents on closed or open sides ("side", "position" and "width" along it: numbers in
// 2D, pairs over the side's two tangent axes in 3D; "speed" schedule, inflow positive); read by
// read_fluid_sources after the sources.
template <class Model>
void read_fluid_vents(const ScenarioNode& root, Model& model, int dimensions);
// The "tune" section (into `tune`) and the rollout problem over the tuned parameters.
template <class Model>
std::unique_ptr<tune::RolloutProblem> read_fluid_problem(const ScenarioNode& root, const ScenarioOverrides& overrides,
                                                         Model& model, System& system, TrajectoryLoss& loss, int steps,
                                                         TuneOptions& tune);

// What the 2D and 3D fluid scenarios share: the model, its system and loss, and the rollout
// problem over the tuned parameters.
template <class Model, class SmokeSystem>
class FluidScenarioOf : public Scenario {
 public:
  std::string simulator() const override { return "fluid"; }
  tune::RolloutProblem& problem() override { return *problem_; }
  // No relaxation: the smooth footprints are the model itself, not a stand-in for a hard one.
  double hard_loss(std::span<const double> x) override { return problem_->value(x); }
  // Smoke density and temperature per cell (run_export.hpp), x fastest as VTK orders cells.
  std::optional<report::GridAnimation> grid_animation(std::span<const double> x) override {
    const auto& g = model_.grid;
    report::GridAnimation out;
    if constexpr (std::decay_t<decltype(g)>::kDimension == 2)
      out.cells = {g.nx(), g.ny(), 1};
    else
      out.cells = {g.n(0), g.n(1), g.n(2)};
    out.spacing = g.h();
    out.fields = {{"density", {}}, {"temperature", {}}};
    const std::size_t cells = static_cast<std::size_t>(out.cell_count());
    record_frames(*this, x, kExportFrames, [&](int t, std::span<const double> state) {
      out.times.push_back(t * model_.settings.dt);
      const auto fields = fluid::fields_of(g, state);
      auto& [density_name, density] = out.fields[0];
      auto& [temperature_name, temperature] = out.fields[1];
      density.resize(density.size() + cells);
      temperature.resize(temperature.size() + cells);
      const std::size_t first = density.size() - cells;
      for (std::size_t c = 0; c < cells; ++c) {
        density[first + c] = fields.density[c];
        temperature[first + c] = fields.temperature[c];
      }
    });
    return out;
  }

 protected:
  // Builds the system, the loss and the problem once the model is read.
  // Under --split (2D only), the grid splits in slabs of rows over the processes.
  void set_up(const ScenarioNode& root, const ScenarioOverrides& overrides, fluid::SmokeLossSettings loss) {
    if (overrides.split) {
      if constexpr (std::decay_t<decltype(model_.grid)>::kDimension == 3) {
        throw std::invalid_argument("--split: 3D smoke does not split over processes (2D grids do)");
      } else {
        slabs_ = overrides.split->row_slabs(model_.grid.ny(), BandScatter::kBandRows);
      }
    }
    try {
      system_ = std::make_unique<SmokeSystem>(model_, slabs_.get());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--split: ") + e.what());
    }
    loss_ = std::make_unique<fluid::SmokeLossOf<Model>>(model_, std::move(loss), slabs_.get());
    problem_ = read_fluid_problem(root, overrides, model_, *system_, *loss_, steps, tune);
  }

 public:
  // A split grid's share: this process's cells, its widest halo in cells, the bytes it sent.
  std::optional<SplitShare> split_share() const override {
    if (!slabs_) return std::nullopt;
    const long columns = long(model_.grid.cells()) / long(slabs_->rows());
    return SplitShare{long(slabs_->own().count()) * columns, long(system_->widest_halo_rows()) * columns,
                      slabs_->bytes_sent()};
  }

 protected:

  Model model_;
  std::unique_ptr<RowSlabs> slabs_;  // under --split
  std::unique_ptr<SmokeSystem> system_;
  std::unique_ptr<fluid::SmokeLossOf<Model>> loss_;
  std::unique_ptr<tune::RolloutProblem> problem_;
};

}  // namespace simgrad::scenario
