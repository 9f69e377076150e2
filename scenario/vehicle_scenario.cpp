#include "scenario/vehicle_scenario.hpp"

#include "scenario/tuned_parameter.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sims/vehicle/design_losses.hpp"
#include "sims/vehicle/tunables.hpp"
#include "sims/vehicle/telemetry.hpp"
#include "sims/vehicle/telemetry_loss.hpp"
#include "sims/vehicle/vehicle_batch.hpp"

namespace simgrad::app {

namespace vh = simgrad::vehicle;
using nlohmann::json;

namespace {

// The quoted, comma-separated names, for "expected one of" messages.
template <class Names>
std::string quoted_list(const Names& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  return list;
}

// The (first) slot of constant `name` in the packed parameters, or -1.
int param_index(const std::string& name) {
  const std::vector<vh::Param> slots = vh::parameter_slots(name);
  return slots.empty() ? -1 : static_cast<int>(slots.front());
}

// The "vehicle" section: a published preset, the tire model, and constants that replace the
// preset's.
vh::VehicleModel read_vehicle(const ScenarioNode& node, std::vector<double>& preset_values) {
  const std::string preset = node.choice("preset", {"bmw_320i", "orca"});
  vh::VehicleModel m = vh::published_vehicle(preset);
  preset_values.assign(m.params.values().begin(), m.params.values().end());
  const std::string tire = node.choice("tire", {"pacejka", "linear"}, "pacejka");
  m.settings.tire = tire == "pacejka" ? vh::TireModel::kPacejka : vh::TireModel::kLinear;
  m.settings.dt = node.positive("dt", m.settings.dt);
  // The chassis: the single-track model (default) or the four-wheel one with its differential.
  if (node.choice("model", {"single_track", "four_wheel"}, "single_track") == "four_wheel") {
    if (m.settings.tire != vh::TireModel::kPacejka)
      node.fail("tire", "the four-wheel model needs Magic Formula tires (\"pacejka\")");
    m.settings.chassis = vh::ChassisModel::kFourWheel;
    m.settings.differential = node.choice("differential", {"open", "limited_slip"}, "open") == "limited_slip"
                                  ? vh::DifferentialModel::kLimitedSlip
                                  : vh::DifferentialModel::kOpen;
  } else if (node.has("differential")) {
    node.fail("differential", "a differential needs \"model\": \"four_wheel\"");
  }
  m.settings.combined_slip = node.boolean("combined_slip", m.settings.combined_slip);
  if (auto blend = node.optional_child("low_speed")) {
    m.settings.blend_low = blend->non_negative("blend_low", m.settings.blend_low);
    m.settings.blend_high = blend->positive("blend_high", m.settings.blend_high);
    if (!(m.settings.blend_high > m.settings.blend_low)) blend->fail("blend_high", "expected blend_high > blend_low");
    m.settings.kinematic_time_constant = blend->positive("time_constant", m.settings.kinematic_time_constant);
    if (m.settings.kinematic_time_constant < m.settings.dt)
      blend->fail("time_constant", "expected a time constant of at least one step (dt)");
  }
  if (auto constants = node.optional_child("constants"))
    for (const auto& [name, value] : constants->members()) {
      const int p = param_index(name);
      if (p < 0) value.fail("unknown constant \"" + name + "\"; see `simgrad list`");
      for (vh::Param slot : vh::parameter_slots(name)) m.param(slot) = value.as_number();
    }
  return m;
}

// The "telemetry" section: the CSV file, its column mapping and units, and the policies for
// unordered times and gaps.
vh::Telemetry read_telemetry_section(const ScenarioNode& node, double dt) {
  const std::filesystem::path file = node.existing_file("file");
  vh::TelemetryOptions options;
  options.dt = dt;
  // A column is a name (SI units) or {"column": name, "unit": unit}.
  auto column_of = [](const ScenarioNode& value, std::string& column, std::string& unit) {
    if (value.json().is_string()) {
      column = value.as_string();
      return;
    }
    const ScenarioNode o = value.as_object();
    column = o.string("column");
    unit = o.string("unit", unit);
  };
  {
    std::string unit = "s";
    const ScenarioNode time = node.member("time");
    column_of(time, options.time_column, unit);
    if (unit != "s" && unit != "ms") time.fail("expected the time unit \"s\" or \"ms\", got \"" + unit + "\"");
    options.time_factor = unit == "ms" ? 1e-3 : 1.0;
  }
  std::vector<vh::ColumnMapping> columns;
  for (const auto& [name, value] : node.child("columns").members()) {
    vh::Channel channel;
    try {
      channel = vh::channel_of(name);
    } catch (const std::invalid_argument& e) {
      value.fail(e.what());
    }
    std::string column, unit(vh::channel_units(channel).front());
    column_of(value, column, unit);
    double factor = 1.0;
    try {
      factor = vh::unit_factor(channel, unit);
    } catch (const std::invalid_argument& e) {
      value.fail(e.what());
    }
    columns.push_back({channel, column, factor});
  }
  options.max_gap = node.non_negative("max_gap", 0.0);
  options.order = node.choice("order", {"error", "sort"}, "error") == "sort" ? vh::OrderPolicy::kSort : vh::OrderPolicy::kError;
  options.gaps = node.choice("gaps", {"error", "interpolate"}, "error") == "interpolate" ? vh::GapPolicy::kInterpolate
                                                                                          : vh::GapPolicy::kError;
  try {
    return vh::read_telemetry(file, columns, options);
  } catch (const vh::TelemetryError& e) {
    // The CSV's own file, line and column.
    throw ScenarioError(e.file(), e.line(), 0, "column \"" + e.column() + "\"", e.message());
  }
}

class VehicleScenario final : public Scenario {
 public:
  VehicleScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    model_ = read_vehicle(root.child("vehicle"), preset_);
    RolloutOptions options;
    options.checkpoint = read_checkpoint(root, overrides);
    options.clip_adjoint_norm = root.non_negative("clip_adjoint_norm", 0.0);
    // Either a recording to fit, or a design target.
    std::optional<ScenarioNode> fit_node;
    if (auto design = root.optional_child("design")) {
      read_design(*design);
    } else {
      fit_node = root.child("fit");
      read_fit(root.child("telemetry"), *fit_node, options);
    }

    const ScenarioNode tune_node = root.child("tune");
    tune = read_tune_settings(tune_node);
    std::vector<tune::BoundParameter> bound = read_tuned_parameters(tune_node, vh::vehicle_tunables(), model_);
    constants_ = bound.size();
    if (fit_ && fit_->fit().free_starts) {
      if (method_ != "multiple_shooting") fit_node->fail("free_starts", "free starts need the multiple_shooting method");
      bound.push_back(vh::bind_window_starts(model_, fit_->fit().scale));
    }
    problem_ = std::make_unique<tune::RolloutProblem>(*system_, *loss_, steps, options, std::move(bound));
    // A telemetry fit is a sum of squares: Levenberg-Marquardt may take it.
    if (fit_) vh::offer_residuals(*problem_, *fit_);
    initial_ = problem_->initial();
  }

  std::string simulator() const override { return "vehicle"; }
  tune::RolloutProblem& problem() override { return *problem_; }
  // The acceleration run's time short of the distance is relaxed by a sigmoid: its hard twin
  // counts whole steps. The vehicle's own smooth steps are part of the model, not relaxations.
  double hard_loss(std::span<const double> x) override {
    if (run_ == nullptr) return problem_->value(x);
    run_->set_softness(0.0);
    const double loss = problem_->value(x);
    run_->set_softness(softness_);
    return loss;
  }

  nlohmann::json summary() override {
    // The tuned values as the model holds them now (constants, then any window starts).
    std::vector<double> x;
    for (std::size_t i = 0; i < constants_; ++i)
      x.push_back(model_.params.values()[static_cast<std::size_t>(param_index(problem_->space().parameters()[i].name))]);
    // Free starts: their offsets from the recorded starts, in channel scales.
    if (problem_->space().parameters().size() > constants_)
      for (int k = 0; k < model_.cars; ++k)
        for (int c = 0; c <= vh::kYawRate; ++c) {
          const double recorded = telemetry_.present[c] ? telemetry_.values[c][fit_->fit().starts[k]] : 0.0;
          x.push_back((model_.initial_state.values()[k * vh::kStateSize + c] - recorded) / fit_->fit().scale[c]);
        }
    json j = {{"method", method_}, {"windows", model_.cars}, {"window_steps", steps},
              {"samples", telemetry_.samples}};
    if (fit_ == nullptr) {
      json d = {{"type", method_}, {"initial", design_figures(initial_)}, {"current", design_figures(x)}};
      if (run_ == nullptr) d["target"] = {{"rise_time_s", rise_time_}, {"overshoot", overshoot_}};
      problem_->assign(x);
      return {{"design", d}};
    }
    json recovered = json::object();
    for (std::size_t i = 0; i < constants_; ++i) {
      const std::string& name = problem_->space().parameters()[i].name;
      const double truth = preset_[static_cast<std::size_t>(param_index(name))];
      recovered[name] = {{"value", x[i]}, {"preset", truth},
                         {"relative_error", truth != 0.0 ? std::abs(x[i] - truth) / std::abs(truth) : std::abs(x[i])}};
    }
    j["parameters_vs_preset"] = recovered;
    j["fit_rmse"] = {{"initial", channel_rmse(initial_)}, {"current", channel_rmse(x)}};
    j["gauss_newton"] = gauss_newton(x);
    problem_->assign(x);
    return j;
  }

  // The cars' paths (one per window) against the recorded path, and the yaw rate and speed
  // channels simulated against recorded.
  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    const int cars = model_.cars, stride = std::max(1, steps / 80);
    const double dt = model_.settings.dt;
    const bool recorded = fit_ != nullptr && telemetry_.present[vh::kChX] && telemetry_.present[vh::kChY];
    json track = json::array();
    if (recorded) {
      const int every = std::max(1, telemetry_.samples / 300);
      const auto& px = telemetry_.values[vh::kChX];
      const auto& py = telemetry_.values[vh::kChY];
      for (int i = every; i < telemetry_.samples; i += every)
        track.push_back({px[i - every], py[i - every], px[i], py[i], 0.0});
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
        c.insert(c.end(), {((fit_ != nullptr ? fit_->fit().starts[k] : 0) + t) * dt, car[vh::kYawRate],
                           std::hypot(car[vh::kVx], car[vh::kVy])});
        if (t % stride != 0 && t != steps) continue;
        points.push_back({car[vh::kX], car[vh::kY]});
      }
      if (t % stride == 0 || t == steps)
        frames.push_back({{"label", "t = " + std::to_string(t * dt) + " s"}, {"points", points}});
    };
    Rollout(*system_, *loss_, steps, o).loss();
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
    if (fit_ != nullptr) {
      auto recording = [&](int channel, const char* name) {
        json r = {{"name", name}, {"x", json::array()}, {"y", json::array()}};
        for (int i = 0; i < telemetry_.samples; ++i) {
          r["x"].push_back(i * dt);
          r["y"].push_back(telemetry_.values[channel][static_cast<std::size_t>(i)]);
        }
        return r;
      };
      if (telemetry_.present[vh::kChYawRate]) yaw_chart["series"].push_back(recording(vh::kChYawRate, "recorded yaw rate"));
      if (telemetry_.present[vh::kChSpeed]) speed_chart["series"].push_back(recording(vh::kChSpeed, "recorded speed"));
      else if (telemetry_.present[vh::kChVx]) speed_chart["series"].push_back(recording(vh::kChVx, "recorded vx"));
    }
    return {{"legend", recorded ? "the cars' paths (red, one per window) against the recorded path (grey)" : "the car's path"},
            {"scale", 1.0},
            {"frames", frames},
            {"background", {{"lines", track}}},
            {"trail", true},
            {"charts", {yaw_chart, speed_chart}}};
  }

 private:
  // A recording to fit: telemetry, windows and weights.
  void read_fit(const ScenarioNode& tel, const ScenarioNode& fit_node, RolloutOptions& options) {
    telemetry_ = read_telemetry_section(tel, model_.settings.dt);
    const std::string method = fit_node.choice("method", {"multiple_shooting", "truncated"}, "multiple_shooting");
    const double window = fit_node.positive("window", 2.0);
    const int window_steps = std::max(1, static_cast<int>(std::lround(window / model_.settings.dt)));
    if (window_steps >= telemetry_.samples)
      fit_node.fail("window", "expected a window shorter than the recording (" +
                                  std::to_string((telemetry_.samples - 1) * model_.settings.dt) + " s)");
    vh::TelemetryFit fit;
    fit.scale = vh::channel_scales(telemetry_);
    fit.continuity_weight = fit_node.non_negative("continuity_weight", 1.0);
    fit.free_starts = fit_node.boolean("free_starts", false);
    // Weights: velocities, yaw rate and accelerations by default; pose channels on request.
    for (int c = vh::kChVx; c < vh::kFitChannels; ++c) fit.weight[c] = c == vh::kChSpeed ? 0.0 : 1.0;
    if (auto weights = fit_node.optional_child("weights"))
      for (const auto& [name, value] : weights->members()) {
        int c = -1;
        for (int k = 0; k < vh::kFitChannels; ++k)
          if (vh::channel_names()[k] == name) c = k;
        if (c < 0) value.fail("expected a fitted channel (" + quoted_list(std::vector<std::string_view>(
                                  vh::channel_names().begin(), vh::channel_names().begin() + vh::kFitChannels)) + ")");
        fit.weight[c] = value.as_non_negative();
      }
    if (method == "multiple_shooting") {
      fit.steps = window_steps;
      fit.starts = vh::window_starts(telemetry_, window_steps);
    } else {
      fit.steps = telemetry_.samples - 1;
      fit.starts = {0};
      options.truncate_horizon = window_steps;
    }
    method_ = method;
    try {
      vh::setup_windows(model_, telemetry_, fit);
    } catch (const std::invalid_argument& e) {
      tel.fail("columns", e.what());
    }
    steps = fit.steps;
    system_ = std::make_unique<vh::VehicleBatch>(model_);
    std::unique_ptr<vh::TelemetryLoss> loss;
    try {
      loss = std::make_unique<vh::TelemetryLoss>(*system_, telemetry_, fit);
    } catch (const std::invalid_argument& e) {
      tel.fail("columns", e.what());
    }
    fit_ = loss.get();
    loss_ = std::move(loss);
  }

  // A design target: the time of a standing-start acceleration run, or a yaw-rate response to a
  // step steer with a given rise time and overshoot.
  void read_design(const ScenarioNode& d) {
    method_ = d.choice("type", {"acceleration_run", "step_steer"});
    const double dt = model_.settings.dt;
    steps = std::max(1, static_cast<int>(std::lround(d.positive("duration") / dt)));
    model_.resize(1, steps);
    system_ = std::make_unique<vh::VehicleBatch>(model_);
    if (method_ == "acceleration_run") {
      distance_ = d.positive("distance");
      softness_ = d.positive("softness", 0.5);
      for (int t = 0; t < steps; ++t) model_.control(t, 0, vh::kThrottle) = 1.0;
      auto loss = std::make_unique<vh::AccelerationRunLoss>(1, dt, distance_, softness_);
      run_ = loss.get();
      loss_ = std::move(loss);
      return;
    }
    const double speed = d.positive("speed");
    const double steer = d.in_range("steer", -0.5, 0.5);
    rise_time_ = d.positive("rise_time");
    overshoot_ = d.in_range("overshoot", 1e-6, 0.9);
    model_.initial_state.values()[vh::kVx] = speed;
    // Throttle that balances rolling resistance and drag at the entry speed.
    vh::Params<double> p;
    for (int i = 0; i < vh::kParamCount; ++i) p[i] = model_.params.values()[i];
    const double resist = vh::rolling_resistance(p[vh::kRollingResistance], speed, model_.settings.speed_epsilon) +
                          vh::aero_drag(p[vh::kDragCoefficient], speed);
    const double throttle = std::clamp(resist / vh::drive_force(p, model_.settings, speed, 1.0), 0.0, 1.0);
    for (int t = 0; t < steps; ++t) {
      model_.control(t, 0, vh::kSteer) = steer;
      model_.control(t, 0, vh::kThrottle) = throttle;
    }
    // Gain: given, or the car's own final yaw rate, so that only the response's shape is tuned.
    double gain = 0.0;
    if (d.has("gain")) {
      gain = d.number("gain") * steer;
    } else {
      const std::vector<double> r = yaw_rates();
      gain = r.back();
    }
    // "metrics" scores the rise time and overshoot themselves; "curve" matches a second-order
    // response with them, which a single-track car cannot follow exactly (see StepMetricsLoss).
    if (d.choice("match", {"curve", "metrics"}, "curve") == "metrics") {
      loss_ = std::make_unique<vh::StepMetricsLoss>(steps, dt, rise_time_, overshoot_, gain);
      return;
    }
    loss_ = std::make_unique<vh::YawResponseLoss>(1, vh::second_order_step(gain, rise_time_, overshoot_, dt, steps + 1),
                                                  std::abs(gain));
  }

  // The yaw rate at every step of a forward run of the one car at the model's current values.
  std::vector<double> yaw_rates() {
    std::vector<double> r;
    vh::AccelerationRunLoss none(1, model_.settings.dt, 0.0, 1.0);
    RolloutOptions o;
    o.observer = [&](int, std::span<const double> state) { r.push_back(state[vh::kYawRate]); };
    Rollout(*system_, none, steps, o).loss();
    return r;
  }

  // The design's figures at physical parameters x.
  json design_figures(const std::vector<double>& x) {
    problem_->assign(x);
    std::vector<double> xs, r;
    vh::AccelerationRunLoss none(1, model_.settings.dt, 0.0, 1.0);
    RolloutOptions o;
    o.observer = [&](int, std::span<const double> state) {
      xs.push_back(state[vh::kX]);
      r.push_back(state[vh::kYawRate]);
    };
    Rollout(*system_, none, steps, o).loss();
    if (run_ != nullptr)
      return {{"time_to_distance_s", vh::crossing_time(xs, model_.settings.dt, distance_)}, {"distance_m", distance_}};
    const vh::StepMetrics m = vh::step_metrics(r, model_.settings.dt);
    return {{"rise_time_s", m.rise_time}, {"overshoot", m.overshoot}, {"final_yaw_rate", r.back()}};
  }

  // Per-channel RMSE (SI units) of the fit at parameters x.
  json channel_rmse(const std::vector<double>& x) {
    problem_->assign(x);
    std::array<double, vh::kFitChannels> sums{};
    std::array<long, vh::kFitChannels> counts{};
    RolloutOptions o;
    o.observer = [&](int t, std::span<const double> state) {
      if (t >= 1) fit_->add_squared_errors(t, state, sums, counts);
    };
    Rollout(*system_, *fit_, steps, o).loss();
    json r = json::object();
    for (int c = 0; c < vh::kFitChannels; ++c)
      if (telemetry_.present[c] && counts[c] > 0)
        r[std::string(vh::channel_names()[c])] = std::sqrt(sums[c] / static_cast<double>(counts[c]));
    return r;
  }

  // All residuals of the loss at parameters x (data term and continuity penalty).
  std::vector<double> residuals(const std::vector<double>& x) {
    problem_->assign(x);
    std::vector<double> r;
    RolloutOptions o;
    o.observer = [&](int t, std::span<const double> state) {
      if (t >= 1) fit_->residuals(t, state, r);
    };
    Rollout(*system_, *loss_, steps, o).loss();
    return r;
  }

  // The Gauss-Newton approximation J^T J of the loss's Hessian in relative parameters
  // (d/d log theta), its Jacobian J by central differences of the residuals. Its eigenvalues
  // against the largest say which combinations of constants the data determines; directions
  // below 1e-8 of the largest are flat (the data does not determine them). Over the vehicle's
  // constants only (free window starts held where they are). A constant near zero (a Magic
  // Formula E) moves in units of at least a hundredth of its bounds' width: relative to its own
  // tiny value it would look flat however well the data fixes it.
  json gauss_newton(const std::vector<double>& x) {
    const std::size_t n = constants_;
    std::vector<std::vector<double>> columns(n);
    for (std::size_t i = 0; i < n; ++i) {
      const tune::Parameter& parameter = problem_->space().parameters()[i];
      const double width = parameter.upper - parameter.lower;
      const double floor = std::isfinite(width) ? 0.01 * width : 0.0;
      const double scale = std::max(std::abs(x[i]), floor) > 0.0 ? std::max(std::abs(x[i]), floor) : 1.0;
      const double h = 1e-5 * scale;
      std::vector<double> xp = x, xm = x;
      xp[i] += h;
      xm[i] -= h;
      const std::vector<double> rp = residuals(xp), rm = residuals(xm);
      columns[i].resize(rp.size());
      for (std::size_t k = 0; k < rp.size(); ++k) columns[i][k] = (rp[k] - rm[k]) / (2.0 * h) * scale;
    }
    Eigen::MatrixXd H(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b <= a; ++b) {
        double s = 0.0;
        for (std::size_t k = 0; k < columns[a].size(); ++k) s += columns[a][k] * columns[b][k];
        H(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) = s;
        H(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(a)) = s;
      }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(H);
    const double largest = std::max(eig.eigenvalues().maxCoeff(), 1e-300);
    json directions = json::array();
    for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(n); ++k) {
      const double ratio = std::max(eig.eigenvalues()(k), 0.0) / largest;
      json weights = json::object();
      for (std::size_t i = 0; i < n; ++i) {
        const double w = eig.eigenvectors()(static_cast<Eigen::Index>(i), k);
        if (std::abs(w) >= 0.2) weights[problem_->space().parameters()[i].name] = w;
      }
      directions.push_back({{"eigenvalue_ratio", ratio}, {"flat", ratio < 1e-8}, {"parameters", weights}});
    }
    json spread = json::object();
    // 1 / sqrt(H_ii): how far (relative) constant i alone may move for a unit rise of the loss.
    for (std::size_t i = 0; i < n; ++i)
      spread[problem_->space().parameters()[i].name] =
          1.0 / std::sqrt(std::max(H(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(i)), 1e-300));
    return {{"directions_smallest_first", directions}, {"condition_number", largest / std::max(eig.eigenvalues()(0), 1e-300)},
            {"relative_sensitivity_inverse", spread}};
  }

  vh::VehicleModel model_;
  std::vector<double> preset_;
  vh::Telemetry telemetry_;
  std::string method_;
  std::size_t constants_ = 0;  // tuned vehicle constants, ahead of any window starts
  std::unique_ptr<vh::VehicleBatch> system_;
  std::unique_ptr<TrajectoryLoss> loss_;
  vh::TelemetryLoss* fit_ = nullptr;           // the loss, when fitting a recording
  vh::AccelerationRunLoss* run_ = nullptr;     // the loss, in an acceleration-run design
  double distance_ = 0.0, softness_ = 0.0;     // acceleration run
  double rise_time_ = 0.0, overshoot_ = 0.0;   // step-steer target
  std::unique_ptr<tune::RolloutProblem> problem_;
  std::vector<double> initial_;
};

}  // namespace

std::unique_ptr<Scenario> load_vehicle_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  return std::make_unique<VehicleScenario>(root, overrides);
}

SimulatorInfo vehicle_info() {
  SimulatorInfo info;
  info.name = "vehicle";
  info.description = "single-track or four-wheel cars (Pacejka or linear tires, load transfer, engine table or DC motor, gears, "
                     "brakes, drag) fitted to telemetry by multiple shooting, or tuned for a design target "
                     "(acceleration run, step-steer response)";
  info.tunables = tune::tunable_infos(vh::vehicle_tunables());
  info.load = load_vehicle_scenario;
  return info;
}

}  // namespace simgrad::app
