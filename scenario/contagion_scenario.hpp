// Scenario files for the agent-based epidemic (simulator "contagion"): population, disease,
// parameters, observed data split into fitted and held-out windows, and the report's baselines.
#pragma once

#include <memory>

#include "scenario/scenario.hpp"

namespace simgrad::scenario {

// Reads a contagion scenario from the root of its file.
std::unique_ptr<Scenario> load_contagion_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The simulator's entry in `simgrad list`.
SimulatorInfo contagion_info();

}  // namespace simgrad::scenario
