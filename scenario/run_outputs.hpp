// What `tune` and `compare` write to their folders, as library functions, so that the command
// line, the C API and a host program write the same files: result.json, loss.svg, report.html
// and report.json.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.hpp"
#include "scenario/scenario.hpp"
#include "scenario/tuning_run.hpp"

namespace simgrad::scenario {

// {"name": value} for scalar parameters, {"name": [values]} for vector ones.
nlohmann::json parameters_json(const tune::ParameterSpace& space, std::span<const double> x);

// Best loss against rollouts spent, for the report's loss plot.
report::PlotSeries rollout_series(const std::string& name, const std::vector<tune::IterationRecord>& history);

// report.html, and report.json for `simgrad render`, in folder `out`.
void write_report_files(const std::filesystem::path& out, const report::ReportInput& report);

// A tuning run's result.json: re-scores the best point on the hard model and leaves the model
// there (under a split model, every process calls it).
nlohmann::json tune_result(Scenario& scenario, TuningRun& run);
// Writes result.json and loss.svg (the best loss per iteration) in folder `out`.
void write_tune_result(const std::filesystem::path& out, const Scenario& scenario, const TuningRun& run,
                       const nlohmann::json& result);

// A tuning run's results in folder `out` (which must exist): result.json (returned, with the
// per-iteration "history"), loss.svg and the report, and each export of the tuned run
// (run_export.hpp) under "exports". Re-scores the best point on the hard model and leaves the
// model there.
nlohmann::json write_tune_outputs(const std::filesystem::path& out, Scenario& scenario, TuningRun& run,
                                  const std::vector<std::filesystem::path>& exports = {});

}  // namespace simgrad::scenario
