// The report's view of smoke (simulator "fluid", 2D and 3D): the summaries and the frames
// (Scenario::summary() and frames(), scenario/scenario.hpp) of its scenarios.
#pragma once

#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "sims/fluid/losses.hpp"
#include "sims/fluid/smoke.hpp"
#include "sims/fluid/smoke.hpp"
#include "sims/fluid/solid_shape3.hpp"

namespace simgrad::report {

// Cells, sources, vents, the pressure solve's most iterations, and from the final state the
// loss's figures and the smoke's mass.
nlohmann::json smoke_summary(fluid::Smoke& system, const fluid::SmokeLoss& loss, std::span<const double> final_state);
nlohmann::json smoke3d_summary(fluid::Smoke3& system, const fluid::SmokeLoss3& loss, std::span<const double> final_state);

// Density per frame of a run of the model's current values, as a grey image (at most 64 x 64,
// 0-255 of the run's largest density); obstacles and source footprints as outlines, each
// source's driven flow as an arrow, boundary vents on their walls with the flow they drive.
nlohmann::json smoke_frames(fluid::Smoke& system, TrajectoryLoss& loss, int steps);
// The same in 3D, the density averaged along z (a side view, y up), with the obstacles and the
// target region box [x0, y0, z0, x1, y1, z1] (empty: none) outlined.
nlohmann::json smoke3d_frames(fluid::Smoke3& system, TrajectoryLoss& loss, int steps,
                              const std::vector<fluid::SolidShape3>& obstacles, const std::vector<double>& region);

}  // namespace simgrad::report
