// A scenario's report: what report.html (report/report.hpp) shows of a run from a start to tuned
// parameters, gathered from the scenario.
#pragma once

#include <span>

#include "report/report.hpp"
#include "scenario/scenario.hpp"

namespace simgrad::scenario {

// Everything but the loss curves for a run from x0 to the tuned x: scores, the parameter table
// with the gradient at x, adjoint norms and frames before and after. Leaves the model at x.
report::ReportInput gather_report(Scenario& scenario, std::span<const double> x0, std::span<const double> x);

}  // namespace simgrad::scenario
