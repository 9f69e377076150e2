// report.html: one self-contained page (inline SVG, CSS and script; nothing fetched) showing what
// a tuning run did: loss curves, the parameter table, hard against relaxed score, per-step
// adjoint norms and an animation of the simulation before and after tuning.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/svg_plot.hpp"
#include "report/version.hpp"

namespace simgrad::report {

// One row of the parameter table (one component of a parameter).
struct ReportParameter {
  std::string name;
  std::string unit;
  double initial = 0.0;
  double tuned = 0.0;
  double lower = 0.0;
  double upper = 0.0;
  double gradient = 0.0;  // dL/d(parameter) at the tuned values
};

struct ReportInput {
  std::string version = kVersion;  // the simgrad that made it
  std::string title;
  std::string simulator;
  std::string description;
  std::vector<PlotSeries> losses;  // best loss against rollouts, one series per method
  std::vector<ReportParameter> parameters;
  double initial_loss = 0.0;
  double relaxed_loss = 0.0;  // the tuned result's loss on the model that was tuned
  double hard_loss = 0.0;     // the same parameters with every relaxation at its hard twin
  std::vector<double> adjoint_norms;  // ||dL/ds_t|| at the tuned values; empty: not a rollout
  // Scenario::frames() before and after tuning; null: no animation (the generic fallback).
  nlohmann::json before;
  nlohmann::json after;
  nlohmann::json extra;  // further figures shown as a JSON block (e.g. compare's table)
};

// The report's data as JSON (report.json beside report.html), and back, so that `simgrad render`
// rebuilds the page without re-simulating. from_json throws std::invalid_argument on a bad file.
nlohmann::json report_to_json(const ReportInput& input);
ReportInput report_from_json(const nlohmann::json& saved);

// The page as HTML text.
std::string render_report(const ReportInput& input);

}  // namespace simgrad::report
