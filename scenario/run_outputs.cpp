#include "scenario/run_outputs.hpp"

#include "report/atomic_file.hpp"
#include "report/json_text.hpp"
#include "report/svg_plot.hpp"
#include "report/version.hpp"
#include "scenario/run_export.hpp"
#include "scenario/scenario_report.hpp"

namespace simgrad::scenario {

using nlohmann::json;
using report::finite_or_null;

json parameters_json(const tune::ParameterSpace& space, std::span<const double> x) {
  json out = json::object();
  for (std::size_t p = 0; p < space.parameters().size(); ++p) {
    const std::size_t n = space.parameters()[p].initial.size();
    const std::size_t first = space.offset(p);
    if (n == 1) {
      out[space.parameters()[p].name] = finite_or_null(x[first]);
    } else {
      json list = json::array();
      for (std::size_t i = 0; i < n; ++i) list.push_back(finite_or_null(x[first + i]));
      out[space.parameters()[p].name] = list;
    }
  }
  return out;
}

report::PlotSeries rollout_series(const std::string& name, const std::vector<tune::IterationRecord>& history) {
  report::PlotSeries series{name, {}, {}};
  for (const tune::IterationRecord& r : history) {
    series.x.push_back(static_cast<double>(r.rollouts));
    series.y.push_back(r.best_loss);
  }
  return series;
}

void write_report_files(const std::filesystem::path& out, const report::ReportInput& report) {
  report::write_file_atomically(out / "report.json", report::to_json_text(report::report_to_json(report)));
  report::write_file_atomically(out / "report.html", report::render_report(report));
}

json tune_result(Scenario& scenario, TuningRun& run) {
  const tune::ParameterSpace& space = scenario.problem().space();
  const tune::OptimizeResult result = run.result();
  const std::vector<double>& x0 = run.initial_parameters();
  const std::vector<double> x = run.best_parameters();
  const double hard = scenario.hard_loss(x);
  // Leave the model at the tuned values, for the summary.
  scenario.problem().value(x);
  json history = json::array();
  for (const tune::IterationRecord& r : result.history) {
    history.push_back({{"iteration", r.iteration},
                       {"rollouts", r.rollouts},
                       {"loss", finite_or_null(r.loss)},
                       {"best_loss", finite_or_null(r.best_loss)},
                       {"wall_s", r.wall_s}});
  }
  const double initial_loss = run.initial_loss();
  json result_json = {{"version", report::kVersion},
                      {"initial_loss", finite_or_null(initial_loss)},
                      {"final_loss", finite_or_null(result.loss)},
                      {"hard_loss", finite_or_null(hard)},
                      {"iterations", result.iterations},
                      {"rollouts", result.rollouts + 1},
                      {"gradient_evaluations", result.gradient_evaluations},
                      {"optimizer", run.options().optimizer},
                      {"stop_reason", result.stop_reason},
                      {"non_finite_rollouts", run.non_finite_rollouts()},
                      {"wall_s", result.wall_s},
                      {"parameters", parameters_json(space, x)},
                      {"initial_parameters", parameters_json(space, x0)},
                      {"summary", scenario.summary()},
                      {"history", history}};
  return result_json;
}

void write_tune_result(const std::filesystem::path& out, const Scenario& scenario, const TuningRun& run,
                       const json& result) {
  report::write_file_atomically(out / "result.json", report::to_json_text(result));
  report::PlotSeries series{run.options().optimizer, {}, {}};
  for (const tune::IterationRecord& r : run.result().history) {
    series.x.push_back(r.iteration);
    series.y.push_back(r.best_loss);
  }
  report::LineChart chart;
  chart.title = scenario.name + ": loss per iteration";
  chart.x_label = "iteration";
  chart.y_label = "best loss";
  chart.y_scale = report::AxisScale::log10;
  chart.series.push_back(series);
  report::write_file_atomically(out / "loss.svg", report::render_svg(chart));
}

json write_tune_outputs(const std::filesystem::path& out, Scenario& scenario, TuningRun& run,
                        const std::vector<std::filesystem::path>& exports) {
  json result = tune_result(scenario, run);
  const std::vector<double> x = run.best_parameters();
  if (!exports.empty()) result["exports"] = export_runs(scenario, x, exports);
  write_tune_result(out, scenario, run, result);
  report::ReportInput report = gather_report(scenario, run.initial_parameters(), x);
  report.initial_loss = run.initial_loss();
  report.losses.push_back(rollout_series(run.options().optimizer, run.result().history));
  write_report_files(out, report);
  return result;
}

}  // namespace simgrad::scenario
