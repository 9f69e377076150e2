// Scenario files for the material point method (simulator "mpm"): bodies of jelly, sand, snow
// or liquid particles on a grid, with walls, colliders and actuators.
#pragma once

#include <memory>

#include "scenario/scenario.hpp"

namespace simgrad::scenario {

// Reads an MPM scenario from the root of its file.
std::unique_ptr<Scenario> load_mpm_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The simulator's entry in `simgrad list`.
SimulatorInfo mpm_info();

}  // namespace simgrad::scenario
