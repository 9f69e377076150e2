// The report's view of rigid worlds (simulator "rigid"): the summary and the frames
// (Scenario::summary() and frames(), scenario/scenario.hpp) of its scenarios.
#pragma once

#include <array>
#include <span>
#include <vector>
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

// World 0's geoms, planes left out, as closed triangle meshes posed at a state (x, y, z per point
// appended to `points`): boxes exactly, spheres, ellipsoids, capsules and cylinders as 12-sided
// polyhedra. The triangles, the same for every state, are appended when `triangles` is given.
void rigid_surface(const rigid::RigidModel& model, const rigid::RigidTree& tree, std::span<const double> state,
                   std::vector<double>& points, std::vector<std::array<Index, 3>>* triangles);

}  // namespace simgrad::report
