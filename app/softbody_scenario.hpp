// Scenario files for the mass-spring soft body (simulator "softbody").
#pragma once

#include <memory>

#include "app/scenario.hpp"

namespace simgrad::app {

// Reads a softbody scenario from the root of its file.
std::unique_ptr<Scenario> load_softbody_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The simulator's entry in `simgrad list`.
SimulatorInfo softbody_info();

}  // namespace simgrad::app
