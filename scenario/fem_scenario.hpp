// Scenario files for FEM soft bodies (simulator "fem"): a mesh (generated or TetGen), corotated
// or neo-Hookean material per region, pins, contact planes, and a loss against marker motion
// (a CSV of captured or reference marker positions, or one simulated with other values).
#pragma once

#include <memory>

#include "scenario/scenario.hpp"
#include "sims/fem/marker_csv.hpp"

namespace simgrad::scenario {

// Reads a fem scenario from the root of its file.
std::unique_ptr<Scenario> load_fem_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// The reference marker trajectory a fem scenario fits (read from its CSV or generated); throws
// std::invalid_argument for another simulator's scenario.
const fem::MarkerTrajectory& fem_reference(const Scenario& scenario);

// The simulator's entry in `simgrad list`.
SimulatorInfo fem_info();

}  // namespace simgrad::scenario
