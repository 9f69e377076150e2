// The report's view of a mass-spring body (simulator "softbody"): the summary and the frames
// (Scenario::summary() and frames(), scenario/scenario.hpp) of its scenarios.
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "core/system.hpp"
#include "sims/softbody/mass_spring.hpp"

namespace simgrad::report {

// {"dimension", "nodes", "springs"}, and "final_area" under a triangle-area loss.
template <int D>
nlohmann::json mass_spring_summary(const softbody::MassSpringModel<D>& model, const TrajectoryLoss& loss,
                                   std::span<const double> final_state);

// Nodes and springs every few steps of a run of the model's current values, springs coloured by
// strain; 3D bodies seen from the side (x, z).
template <int D>
nlohmann::json mass_spring_frames(softbody::MassSpring<D>& system, TrajectoryLoss& loss, int steps);

}  // namespace simgrad::report
