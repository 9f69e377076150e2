// Scenario files for 2D Eulerian smoke (simulator "fluid"): the grid and its sides, obstacles,
// the starting smoke, emitters and vents with their schedules, the pressure solver, the loss
// (a target picture, a region to fill, a smoothness penalty) and what may be tuned.
#pragma once

#include <memory>

#include "app/scenario.hpp"

namespace simgrad::app {

// Reads a fluid scenario from the root of its file.
std::unique_ptr<Scenario> load_fluid_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The simulator's entry in `simgrad list`.
SimulatorInfo fluid_info();

}  // namespace simgrad::app
