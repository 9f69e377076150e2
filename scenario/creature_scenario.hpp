// Scenario files for player-built creatures (simulator "creature").
#pragma once

#include <memory>

#include "scenario/scenario.hpp"

namespace simgrad::scenario {

// Reads a creature scenario from the root of its file.
std::unique_ptr<Scenario> load_creature_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The simulator's entry in `simgrad list`.
SimulatorInfo creature_info();

}  // namespace simgrad::scenario
