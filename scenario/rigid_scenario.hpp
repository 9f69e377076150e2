// Scenario files for rigid and articulated bodies read from MJCF models (simulator "rigid").
#pragma once

#include <memory>

#include "scenario/scenario.hpp"

namespace simgrad::scenario {

// Reads a rigid-body scenario from the root of its file.
std::unique_ptr<Scenario> load_rigid_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The simulator's entry in `simgrad list`.
SimulatorInfo rigid_info();

}  // namespace simgrad::scenario
