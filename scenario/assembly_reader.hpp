// Reading a player-built machine (sims/assembly) from a scenario's "model" section: a graph
// under "assembly" ({"parts", "connections", "actuators", "root", "base", "start"}) or a text
// plan under "plan" (one string per line, plan.hpp), and the "environment" around it. Errors
// name the file, line and field; a plan's, its line.
#pragma once

#include "scenario/scenario_reader.hpp"
#include "sims/assembly/assembly.hpp"

namespace simgrad::scenario {

// Whether the "model" section describes an assembly rather than naming an MJCF file.
bool is_assembly(const ScenarioNode& model);

// The assembly the "model" section describes, checked (assembly::check).
assembly::Assembly read_assembly(const ScenarioNode& model);

}  // namespace simgrad::scenario
