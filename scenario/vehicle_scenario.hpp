// Scenario files for vehicles fitted to telemetry (simulator "vehicle").
#pragma once

#include <memory>

#include "scenario/scenario.hpp"

namespace simgrad::scenario {

// Reads a vehicle scenario from the root of its file.
std::unique_ptr<Scenario> load_vehicle_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The simulator's entry in `simgrad list`.
SimulatorInfo vehicle_info();

}  // namespace simgrad::scenario
