// The report's view of a structure (simulator "structure"): the summary, explain's hints as
// JSON, and the frame (Scenario::summary(), explain() and frames(), scenario/scenario.hpp).
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "sims/structure/dynamic.hpp"
#include "sims/structure/explain.hpp"
#include "sims/structure/structure_problem.hpp"

namespace simgrad::report {

// The problem's current design rated on the hard model: kind, sizes, rating and its terms, the
// governing member, the catalogue sections chosen, and with `dynamic` the scores of a dynamic
// run under those settings (the deck's deflection limit `deflection_limit`).
nlohmann::json structure_summary(structure::StructureProblem& problem, const structure::DynamicSettings* dynamic,
                                 double deflection_limit);

// {"rating", "hard_rating", "hints": [{"text", "action", "part", "index", "parameter", "step",
// "state", "predicted_change", "predicted_percent", "rerated_change", "rerated_percent",
// "hard_rerated_change"}]}.
nlohmann::json explanation_json(const structure::StructureProblem& problem, const structure::Explanation& explanation);

// One frame of the design at physical parameters x: members coloured by stress ratio (1 = at the
// limit) and explain's joint moves as arrows; a 3D truss is seen from the side (x, z). Leaves the
// problem at x.
nlohmann::json structure_frames(structure::StructureProblem& problem, const structure::ExplainOptions& explain,
                                std::span<const double> x);

}  // namespace simgrad::report
