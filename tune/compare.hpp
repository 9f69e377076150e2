#pragma once

// Gradient tuning against black-box search on the same loss, from the same start, to the same
// target: the measurement behind "tens of gradient iterations instead of thousands of rollouts".
// Each method runs until it reaches the target or spends its rollout budget (or stops on its
// own, e.g. a gradient method at a stationary point short of the target).

#include <span>
#include <string>
#include <vector>

#include "tune/objective.hpp"
#include "tune/optimizer.hpp"

namespace simgrad::tune {

struct CompareOptions {
  std::string gradient_method = "lbfgs";  // any name make_optimizer accepts
  long gradient_rollouts = 1'000;
  long cmaes_rollouts = 100'000;
  long random_search_rollouts = 100'000;
  // Shared settings (seed, learning rate, tolerances). Each method's target_loss and
  // max_rollouts are set by compare(), and max_iterations is lifted so that budgets decide.
  OptimizerOptions optimizer;
};

struct MethodReport {
  std::string method;
  bool ran = true;       // false when the method could not run (random search without bounds)
  std::string skipped_because;
  OptimizeResult result;  // rollouts, gradient evaluations, wall_s, reached, best loss, history
};

struct CompareResult {
  double target_loss = 0;
  std::vector<MethodReport> methods;  // the gradient method first, then CMA-ES, random search
};

// Runs the gradient method and each baseline from x0 inside [lower, upper] (empty: unbounded).
// A NaN target_loss asks for CMA-ES's best loss at its budget as the target: CMA-ES runs first,
// spending its whole budget, and the others then run to what it reached.
CompareResult compare(Objective& objective, std::span<const double> x0,
                      std::span<const double> lower, std::span<const double> upper,
                      double target_loss, const CompareOptions& options = {});

}  // namespace simgrad::tune
