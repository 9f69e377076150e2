// `compare` as a library function: the scenario's gradient method against CMA-ES and random
// search from the same start, each to the same target loss, so that the command line, the Python
// module and a host program run one comparison and get one table.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "report/report.hpp"
#include "scenario/scenario.hpp"

namespace simgrad::scenario {

struct CompareRequest {
  // The loss each method runs to; default: the scenario's "tune.target_loss", else the best loss
  // CMA-ES reaches within its budget (the claim is "the gradient reaches what the baseline
  // reaches with its budget, in far fewer rollouts"; a fixed fraction of the initial loss means
  // nothing for a loss that may be negative, such as distance walked).
  std::optional<double> target;
  long budget = 0;  // rollouts per black-box baseline; 0: the scenario's baseline budget
};

struct Comparison {
  // {"target_loss", "target_source" ("request", "scenario" or "cmaes_best"), "initial_loss",
  // "non_finite_rollouts", "gradient", "cmaes", "random"}, each method {"method", "ran",
  // "rollouts", "gradient_evaluations", "iterations", "wall_s", "reached", "best_loss"}.
  nlohmann::json table;
  // report.html's data: the loss of every method against rollouts, the gradient method's result
  // animated against the start, and the table.
  report::ReportInput report;
};

// Runs the comparison from the scenario's initial parameters; leaves the model at the gradient
// method's result.
Comparison compare_methods(Scenario& scenario, const CompareRequest& request);

}  // namespace simgrad::scenario
