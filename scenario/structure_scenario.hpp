// Scenario files for trusses and frames (simulator "structure"): the structure, its load cases
// (a vehicle crossing the deck among them), the rating formula, what may be tuned, and how
// `explain` sizes its hints.
#pragma once

#include <memory>

#include "scenario/scenario.hpp"

namespace simgrad::scenario {

// Reads a structure scenario from the root of its file.
std::unique_ptr<Scenario> load_structure_scenario(const ScenarioNode& root);

// The simulator's entry in `simgrad list`.
SimulatorInfo structure_info();

}  // namespace simgrad::scenario
