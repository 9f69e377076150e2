#include "scenario/scenario_report.hpp"

#include <cmath>
#include <vector>

#include "core/diagnostics.hpp"

namespace simgrad::scenario {

report::ReportInput gather_report(Scenario& scenario, std::span<const double> x0, std::span<const double> x) {
  tune::Problem& problem = scenario.problem();
  const tune::ParameterSpace& space = problem.space();
  report::ReportInput in;
  in.title = scenario.name;
  in.simulator = scenario.simulator();
  in.description = scenario.description;
  in.before = scenario.frames(x0);
  in.hard_loss = scenario.hard_loss(x);
  in.after = scenario.frames(x);
  std::vector<double> g(x.size(), NAN);
  try {
    in.relaxed_loss = problem.value_and_gradient(x, g);
  } catch (const NonFiniteError&) {
    // A tuned point whose gradient blows up still gets a report; the table shows it.
    in.relaxed_loss = NAN;
  }
  if (auto* rollout = dynamic_cast<tune::RolloutProblem*>(&problem)) in.adjoint_norms = rollout->rollout().adjoint_norms();
  for (std::size_t p = 0; p < space.parameters().size(); ++p) {
    const tune::Parameter& parameter = space.parameters()[p];
    for (std::size_t i = 0; i < parameter.initial.size(); ++i) {
      const std::size_t k = space.offset(p) + i;
      in.parameters.push_back({space.component_name(k), parameter.unit, x0[k], x[k], parameter.lower, parameter.upper, g[k]});
    }
  }
  return in;
}

}  // namespace simgrad::scenario
