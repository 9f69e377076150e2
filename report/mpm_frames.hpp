// The report's view of an MPM run (simulator "mpm"): the summary and the frames
// (Scenario::summary() and frames(), scenario/scenario.hpp) of its scenarios.
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "core/system.hpp"
#include "sims/mpm/mpm.hpp"

namespace simgrad::report {

// {"dimension", "particles", "nodes", "bodies", "materials": {name: count}, "centre", "lowest",
// "farthest"} of a final state.
template <int D>
nlohmann::json mpm_summary(mpm::Mpm<D>& system, std::span<const double> final_state);

// The particles every few steps of a run of the model's current values, in the plane of axis 0
// and the vertical axis (D - 1), coloured by material (hue) and by the size of their Kirchhoff
// stress (shade: below 0.5%, below 2%, above 2% of the material's modulus); the walls and
// colliders under them; the centre's path as a chart.
template <int D>
nlohmann::json mpm_frames(mpm::Mpm<D>& system, TrajectoryLoss& loss, int steps);

}  // namespace simgrad::report
