#include "tune/compare.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "tune/box.hpp"
#include "tune/methods.hpp"

namespace simgrad::tune {
namespace {

// One method's run to the shared target within its own budget.
MethodReport run_method(std::string_view method, long budget, Objective& objective,
                        std::span<const double> x0, std::span<const double> lower,
                        std::span<const double> upper, double target_loss,
                        const OptimizerOptions& shared) {
  OptimizerOptions options = shared;
  options.target_loss = target_loss;
  options.max_rollouts = budget;
  options.max_iterations = std::numeric_limits<int>::max();
  const auto optimizer = make_optimizer(method, options);
  return {std::string(method), true, "", minimize(*optimizer, objective, x0, lower, upper)};
}

}  // namespace

CompareResult compare(Objective& objective, std::span<const double> x0,
                      std::span<const double> lower, std::span<const double> upper,
                      double target_loss, const CompareOptions& options) {
  CompareResult comparison;
  std::optional<MethodReport> cmaes;
  if (std::isnan(target_loss)) {
    cmaes = run_method("cmaes", options.cmaes_rollouts, objective, x0, lower, upper,
                       -std::numeric_limits<double>::infinity(), options.optimizer);
    target_loss = cmaes->result.loss;
    cmaes->result.reached_target = true;  // by definition of the target
  }
  comparison.target_loss = target_loss;
  comparison.methods.push_back(run_method(options.gradient_method, options.gradient_rollouts,
                                          objective, x0, lower, upper, target_loss,
                                          options.optimizer));
  comparison.methods.push_back(cmaes ? *std::move(cmaes)
                                     : run_method("cmaes", options.cmaes_rollouts, objective, x0, lower,
                                                  upper, target_loss, options.optimizer));
  const bool bounded = !lower.empty() && !upper.empty() && all_finite(lower) && all_finite(upper);
  if (bounded) {
    comparison.methods.push_back(run_method("random_search", options.random_search_rollouts,
                                            objective, x0, lower, upper, target_loss,
                                            options.optimizer));
  } else {
    comparison.methods.push_back(
        {"random_search", false, "random search needs finite bounds on every parameter", {}});
  }
  return comparison;
}

}  // namespace simgrad::tune
