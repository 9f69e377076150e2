#include "scenario/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "report/json_text.hpp"
#include "scenario/run_outputs.hpp"
#include "scenario/scenario_report.hpp"
#include "tune/compare.hpp"

namespace simgrad::scenario {

Comparison compare_methods(Scenario& scenario, const CompareRequest& request) {
  using nlohmann::json;
  tune::Problem& problem = scenario.problem();
  const tune::ParameterSpace& space = problem.space();
  const TuneOptions& tuning = scenario.tune;
  tune::NonFiniteAsInfinite guarded_problem(problem);
  tune::TransformedObjective objective = space.objective(guarded_problem);
  const std::vector<double> x0 = problem.initial();
  const std::vector<double> z0 = space.to_optimizer(x0);
  const double initial_loss = problem.value(x0);
  double target = std::numeric_limits<double>::quiet_NaN();  // tune::compare: CMA-ES's best
  std::string source = "cmaes_best";
  if (std::isfinite(tuning.target_loss)) {
    target = tuning.target_loss;
    source = "scenario";
  }
  if (request.target) {
    target = *request.target;
    source = "request";
  }
  tune::CompareOptions options;
  options.gradient_method = tuning.optimizer;
  options.gradient_rollouts = std::max<long>(10L * tuning.iterations, 100);
  const long budget = request.budget > 0 ? request.budget : tuning.baseline_budget;
  options.cmaes_rollouts = budget;
  options.random_search_rollouts = budget;
  options.optimizer.learning_rate = tuning.learning_rate;
  options.optimizer.seed = tuning.seed;
  options.optimizer.gradient_tolerance = 0.0;
  const tune::CompareResult result =
      tune::compare(objective, z0, space.optimizer_lower(), space.optimizer_upper(), target, options);

  Comparison out;
  out.table = {{"target_loss", result.target_loss},
               {"target_source", source},
               {"initial_loss", initial_loss},
               {"non_finite_rollouts", guarded_problem.failures()}};
  const char* keys[] = {"gradient", "cmaes", "random"};
  for (std::size_t i = 0; i < result.methods.size() && i < 3; ++i) {
    const tune::MethodReport& m = result.methods[i];
    json entry = {{"method", m.method},
                  {"ran", m.ran},
                  {"rollouts", m.result.rollouts},
                  {"gradient_evaluations", m.result.gradient_evaluations},
                  {"iterations", m.result.iterations},
                  {"wall_s", m.result.wall_s},
                  {"reached", m.result.reached_target},
                  {"best_loss", report::finite_or_null(m.result.loss)}};
    if (!m.ran) entry["skipped_because"] = m.skipped_because;
    out.table[keys[i]] = entry;
  }
  // The report animates the gradient method's result against the start.
  const tune::MethodReport& gradient = result.methods.front();
  const std::vector<double> x = gradient.ran && !gradient.result.x.empty() ? space.to_physical(gradient.result.x) : x0;
  out.report = gather_report(scenario, x0, x);
  out.report.initial_loss = initial_loss;
  for (const tune::MethodReport& m : result.methods)
    if (m.ran) out.report.losses.push_back(rollout_series(m.method, m.result.history));
  out.report.extra = out.table;
  return out;
}

}  // namespace simgrad::scenario
