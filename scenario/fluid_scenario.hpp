// Scenario files for 2D Eulerian smoke (simulator "fluid"): the grid and its sides, obstacles,
// the starting smoke, emitters and vents with their schedules, the pressure solver, the loss
// (a target picture, a region to fill, a smoothness penalty) and what may be tuned.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <memory>

#include "scenario/scenario.hpp"
#include "sims/fluid/losses.hpp"
#include "sims/fluid/tunables.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::app {

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
// A report frame of a density picture at `step`: nx x ny samples of `pixel` metres, 0-255 of
// `largest`, with the sources' arrows.
nlohmann::json density_frame(int step, const std::vector<double>& density, double largest, int nx, int ny, double pixel,
                             nlohmann::json arrows);
// The boundary vents as line segments [x0, y0, x1, y1] in the x-y picture of the report: a
// segment along its wall, or in 3D a vent on a front or back side as its patch's four edges.
template <class Model>
std::vector<std::array<double, 4>> vent_segments(const Model& model);
// Appends to `arrows` the flow of each boundary vent on a side seen in the x-y picture at step t:
// from the vent's centre along its wall's inward normal (outward for outflow), as long as the
// vent is wide times its speed (at most twice).
template <class Model>
void add_vent_arrows(const Model& model, int t, nlohmann::json& arrows);
// The "tune" section (into `tune`) and the rollout problem over the tuned parameters.
template <class Model>
std::unique_ptr<tune::RolloutProblem> read_fluid_problem(const ScenarioNode& root, const ScenarioOverrides& overrides,
                                                         Model& model, System& system, TrajectoryLoss& loss, int steps,
                                                         TuneSettings& tune);

// What the 2D and 3D fluid scenarios share: the model, its system and loss, and the rollout
// problem over the tuned parameters.
template <class Model, class SmokeSystem>
class FluidScenarioOf : public Scenario {
 public:
  std::string simulator() const override { return "fluid"; }
  tune::RolloutProblem& problem() override { return *problem_; }
  // No relaxation: the smooth footprints are the model itself, not a stand-in for a hard one.
  double hard_loss(std::span<const double> x) override { return problem_->value(x); }

 protected:
  // Builds the system, the loss and the problem once the model is read.
  void set_up(const ScenarioNode& root, const ScenarioOverrides& overrides, fluid::SmokeLossSettings loss) {
    system_ = std::make_unique<SmokeSystem>(model_);
    loss_ = std::make_unique<fluid::SmokeLossOf<Model>>(model_, std::move(loss));
    problem_ = read_fluid_problem(root, overrides, model_, *system_, *loss_, steps, tune);
  }

  // Pictures of the density along a run (about 30, and the last step's), each from
  // picture(state), with the largest value over all of them.
  struct Pictures {
    std::vector<std::vector<double>> views;
    std::vector<int> times;
    double largest = 1e-12;
  };
  Pictures record_pictures(const std::function<std::vector<double>(std::span<const double>)>& picture) {
    Pictures p;
    const int stride = std::max(1, steps / 30);
    RolloutOptions record;
    record.observer = [&](int t, std::span<const double> state) {
      if (t % stride != 0 && t != steps) return;
      p.views.push_back(picture(state));
      for (double v : p.views.back()) p.largest = std::max(p.largest, v);
      p.times.push_back(t);
    };
    Rollout(*system_, *loss_, steps, record).loss();
    return p;
  }

  Model model_;
  std::unique_ptr<SmokeSystem> system_;
  std::unique_ptr<fluid::SmokeLossOf<Model>> loss_;
  std::unique_ptr<tune::RolloutProblem> problem_;
};

}  // namespace simgrad::app
