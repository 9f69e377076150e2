// Scenario files for 2D Eulerian smoke (simulator "fluid"): the grid and its sides, obstacles,
// the starting smoke, emitters and vents with their schedules, the pressure solver, the loss
// (a target picture, a region to fill, a smoothness penalty) and what may be tuned.
#pragma once

#include <memory>

#include "app/scenario.hpp"
#include "sims/fluid/parameters.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::app {

// Reads a fluid scenario from the root of its file.
std::unique_ptr<Scenario> load_fluid_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The simulator's entry in `simgrad list`.
SimulatorInfo fluid_info();

// Pieces shared by the 2D and 3D fluid loaders.
// What a scenario that leaves a tunable quantity out gets; `simgrad describe` prints the same.
const nlohmann::json& fluid_defaults();
double fluid_default(const char* name);
// One side's boundary: "closed" (default), "open" or "periodic".
fluid::Side read_side(const ScenarioNode& sides, std::string_view key);
// dt, buoyancy, weight, viscosity (checked for stability) and "pressure".
fluid::SmokeSettings read_smoke_settings(const ScenarioNode& root, int steps, double cell_size);
// A schedule: one number for all knots, or one per knot.
std::vector<double> read_schedule(const ScenarioNode& node, std::string_view key, int knots, double fallback);
// "schedule_knots" and "sources" (positions of `dimensions` coordinates; "tilt" in 3D).
template <class Model>
void read_fluid_sources(const ScenarioNode& root, Model& model, int dimensions);
// One entry of tune.parameters.
template <class Model>
tune::BoundParameter read_fluid_parameter(const ScenarioNode& p, Model& model);
// The "tune" section (into `tune`) and the rollout problem over the tuned parameters.
template <class Model>
std::unique_ptr<tune::RolloutProblem> read_fluid_problem(const ScenarioNode& root, const ScenarioOverrides& overrides,
                                                         Model& model, System& system, TrajectoryLoss& loss, int steps,
                                                         TuneSettings& tune);

}  // namespace simgrad::app
