// The report's view of rigid worlds (simulator "rigid"): the summary and the frames
// (Scenario::summary() and frames(), scenario/scenario.hpp) of its scenarios.
#pragma once

#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "sims/rigid/losses.hpp"
#include "sims/rigid/rigid_worlds.hpp"

namespace simgrad::report {

// Which plane the bodies are drawn in: from the side (x, z) or from above (x, y).
enum class RigidView { kSide, kTop };

// {"bodies", "dofs", "actuators", "contact_pairs", "worlds"}, and for world 0 the final reach
// distance, the progress along the loss's direction and the effort, when the loss has them.
nlohmann::json rigid_summary(rigid::RigidWorlds& system, const rigid::RigidLoss& loss, std::span<const double> final_state);

// World 0's geoms as outlines every few steps of a run of the model's current values: capsules
// and cylinders by their axes and ends, spheres and ellipsoids as circles, boxes by their edges,
// planes as the ground line (side view); the reach target as a point.
nlohmann::json rigid_frames(rigid::RigidWorlds& system, rigid::RigidLoss& loss, int steps, RigidView view);

}  // namespace simgrad::report
