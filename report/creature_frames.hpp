// The report's view of a creature (simulator "creature"): the summary and the frames
// (Scenario::summary() and frames(), scenario/scenario.hpp) of its scenarios.
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "sims/creature/body_plan.hpp"
#include "sims/creature/creature.hpp"
#include "sims/creature/losses.hpp"
#include "sims/fem/model.hpp"
#include "sims/softbody/mass_spring_model.hpp"

namespace simgrad::report {

// A creature's body as the report sees it: its plan, and the mass-spring model it was assembled
// into or, for an FEM body, the FEM model (`fem` not null; `springs` then unused).
struct CreatureBody {
  const creature::BodyPlan& plan;
  const softbody::MassSpringModel<2>& springs;
  const fem::FemModel<2>* fem = nullptr;
};

// The body's size, the head's x and travel, and the task's figure in the final state.
nlohmann::json creature_summary(const CreatureBody& body, const creature::TaskLoss& loss, std::span<const double> final_state);

// Nodes and edges (springs, or the triangles' sides) every few steps of a run, coloured by
// strain (actuated ones included), the ground as background, and the head's x over time.
nlohmann::json creature_frames(const CreatureBody& body, creature::Creature& creature, creature::TaskLoss& loss, int steps);

}  // namespace simgrad::report
