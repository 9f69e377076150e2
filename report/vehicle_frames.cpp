#include "report/vehicle_frames.hpp"

#include <algorithm>
#include <cmath>

#include "core/rollout.hpp"
#include "sims/vehicle/fit_analysis.hpp"
#include "sims/vehicle/tunables.hpp"

namespace simgrad::report {

namespace vh = simgrad::vehicle;
using nlohmann::json;

namespace {

// The slot of constant `name` in the packed parameters.
std::size_t slot_of(const std::string& name) { return static_cast<std::size_t>(vh::parameter_slots(name).front()); }

// The design's figures at physical parameters x.
json design_figures(const VehicleRun& run, const std::vector<double>& x) {
  run.problem.assign(x);
  const vh::CarTrace trace = vh::trace_car(run.system, run.model.settings.dt, run.steps);
  if (run.run != nullptr)
    return {{"time_to_distance_s", vh::crossing_time(trace.x, run.model.settings.dt, run.distance)}, {"distance_m", run.distance}};
  const vh::StepMetrics m = vh::step_metrics(trace.yaw_rate, run.model.settings.dt);
  return {{"rise_time_s", m.rise_time}, {"overshoot", m.overshoot}, {"final_yaw_rate", trace.yaw_rate.back()}};
}

// Per-channel RMSE (SI units) of the fit at parameters x.
json channel_rmse(const VehicleRun& run, const std::vector<double>& x) {
  run.problem.assign(x);
  const auto rmse = vh::channel_rmse(run.system, *run.fit, run.telemetry, run.steps);
  json r = json::object();
  for (int c = 0; c < vh::kFitChannels; ++c)
    if (rmse[c]) r[std::string(vh::channel_names()[c])] = *rmse[c];
  return r;
}

json gauss_newton_json(const VehicleRun& run, const std::vector<double>& x) {
  const vh::GaussNewtonAnalysis a = vh::gauss_newton(run.problem, run.system, *run.fit, run.steps, run.constants, x);
  json directions = json::array();
  for (const vh::GaussNewtonDirection& d : a.directions) {
    json weights = json::object();
    for (const auto& [name, w] : d.parameters) weights[name] = w;
    directions.push_back({{"eigenvalue_ratio", d.eigenvalue_ratio}, {"flat", d.flat}, {"parameters", weights}});
  }
  json spread = json::object();
  for (const auto& [name, s] : a.relative_sensitivity_inverse) spread[name] = s;
  return {{"directions_smallest_first", directions}, {"condition_number", a.condition_number},
          {"relative_sensitivity_inverse", spread}};
}

}  // namespace

json vehicle_summary(const VehicleRun& run) {
  const vh::VehicleModel& model = run.model;
  const std::vector<tune::Parameter>& parameters = run.problem.space().parameters();
  // The tuned values as the model holds them now (constants, then any window starts).
  std::vector<double> x;
  for (std::size_t i = 0; i < run.constants; ++i) x.push_back(model.params.values()[slot_of(parameters[i].name)]);
  // Free starts: their offsets from the recorded starts, in channel scales.
  if (parameters.size() > run.constants)
    for (int k = 0; k < model.cars; ++k)
      for (int c = 0; c <= vh::kYawRate; ++c) {
        const double recorded = run.telemetry.present[c] ? run.telemetry.values[c][run.fit->fit().starts[k]] : 0.0;
        x.push_back((model.initial_state.values()[k * vh::kStateSize + c] - recorded) / run.fit->fit().scale[c]);
      }
  json j = {{"method", run.method}, {"windows", model.cars}, {"window_steps", run.steps}, {"samples", run.telemetry.samples}};
  if (run.fit == nullptr) {
    json d = {{"type", run.method}, {"initial", design_figures(run, run.initial)}, {"current", design_figures(run, x)}};
    if (run.run == nullptr) d["target"] = {{"rise_time_s", run.rise_time}, {"overshoot", run.overshoot}};
    run.problem.assign(x);
    return {{"design", d}};
  }
  json recovered = json::object();
  for (std::size_t i = 0; i < run.constants; ++i) {
    const std::string& name = parameters[i].name;
    const double truth = run.preset[slot_of(name)];
    recovered[name] = {{"value", x[i]}, {"preset", truth},
                       {"relative_error", truth != 0.0 ? std::abs(x[i] - truth) / std::abs(truth) : std::abs(x[i])}};
  }
  j["parameters_vs_preset"] = recovered;
  j["fit_rmse"] = {{"initial", channel_rmse(run, run.initial)}, {"current", channel_rmse(run, x)}};
  j["gauss_newton"] = gauss_newton_json(run, x);
  run.problem.assign(x);
  return j;
}

json vehicle_frames(const VehicleRun& run) {
  const vh::VehicleModel& model = run.model;
  const vh::Telemetry& telemetry = run.telemetry;
  const int cars = model.cars, steps = run.steps, stride = std::max(1, steps / 80);
  const double dt = model.settings.dt;
  const bool recorded = run.fit != nullptr && telemetry.present[vh::kChX] && telemetry.present[vh::kChY];
  json track = json::array();
  if (recorded) {
    const int every = std::max(1, telemetry.samples / 300);
    const auto& px = telemetry.values[vh::kChX];
    const auto& py = telemetry.values[vh::kChY];
    for (int i = every; i < telemetry.samples; i += every) track.push_back({px[i - every], py[i - every], px[i], py[i], 0.0});
  }
  std::vector<std::vector<double>> channels(static_cast<std::size_t>(cars));  // per car: time, yaw rate, speed
  json yaw = {{"name", "simulated yaw rate"}, {"x", json::array()}, {"y", json::array()}};
  json speed = {{"name", "simulated speed"}, {"x", json::array()}, {"y", json::array()}};
  json frames = json::array();
  RolloutOptions o;
  o.observer = [&](int t, std::span<const double> state) {
    json points = json::array();
    for (int k = 0; k < cars; ++k) {
      const std::span<const double> car = state.subspan(static_cast<std::size_t>(k * vh::kStateSize), vh::kStateSize);
      auto& c = channels[static_cast<std::size_t>(k)];
      c.insert(c.end(), {((run.fit != nullptr ? run.fit->fit().starts[k] : 0) + t) * dt, car[vh::kYawRate],
                         std::hypot(car[vh::kVx], car[vh::kVy])});
      if (t % stride != 0 && t != steps) continue;
      points.push_back({car[vh::kX], car[vh::kY]});
    }
    if (t % stride == 0 || t == steps) frames.push_back({{"label", "t = " + std::to_string(t * dt) + " s"}, {"points", points}});
  };
  Rollout(run.system, run.loss, steps, o).loss();
  // One line per window, with a gap between windows.
  for (const std::vector<double>& c : channels) {
    for (std::size_t i = 0; i < c.size(); i += 3) {
      yaw["x"].push_back(c[i]);
      yaw["y"].push_back(c[i + 1]);
      speed["x"].push_back(c[i]);
      speed["y"].push_back(c[i + 2]);
    }
    for (json* series : {&yaw, &speed}) {
      (*series)["x"].push_back(nullptr);
      (*series)["y"].push_back(nullptr);
    }
  }
  json yaw_chart = {{"title", "yaw rate"}, {"x_label", "time [s]"}, {"y_label", "yaw rate [rad/s]"}, {"series", {yaw}}};
  json speed_chart = {{"title", "speed"}, {"x_label", "time [s]"}, {"y_label", "speed [m/s]"}, {"series", {speed}}};
  if (run.fit != nullptr) {
    auto recording = [&](int channel, const char* name) {
      json r = {{"name", name}, {"x", json::array()}, {"y", json::array()}};
      for (int i = 0; i < telemetry.samples; ++i) {
        r["x"].push_back(i * dt);
        r["y"].push_back(telemetry.values[channel][static_cast<std::size_t>(i)]);
      }
      return r;
    };
    if (telemetry.present[vh::kChYawRate]) yaw_chart["series"].push_back(recording(vh::kChYawRate, "recorded yaw rate"));
    if (telemetry.present[vh::kChSpeed]) speed_chart["series"].push_back(recording(vh::kChSpeed, "recorded speed"));
    else if (telemetry.present[vh::kChVx]) speed_chart["series"].push_back(recording(vh::kChVx, "recorded vx"));
  }
  return {{"legend", recorded ? "the cars' paths (red, one per window) against the recorded path (grey)" : "the car's path"},
          {"scale", 1.0},
          {"frames", frames},
          {"background", {{"lines", track}}},
          {"trail", true},
          {"charts", {yaw_chart, speed_chart}}};
}

}  // namespace simgrad::report
