#include "scenario/vehicle_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "report/vehicle_frames.hpp"
#include "scenario/tuned_parameter.hpp"
#include "sims/vehicle/design_losses.hpp"
#include "sims/vehicle/tunables.hpp"
#include "sims/vehicle/telemetry.hpp"
#include "sims/vehicle/telemetry_loss.hpp"
#include "sims/vehicle/vehicle_batch.hpp"

namespace simgrad::scenario {

namespace vh = simgrad::vehicle;

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
    tune = read_tune_options(tune_node);
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
    problem_->assign(x);
    vh::AccelerationRunLoss hard = run_->hard_twin();
    return problem_->twin_value(*system_, hard);
  }

  // The constants against the preset's and what the data determines, or the design's figures
  // (report/vehicle_frames.hpp).
  nlohmann::json summary() override { return report::vehicle_summary(run()); }

  // The cars' paths and the yaw rate and speed against the recording (report/vehicle_frames.hpp).
  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    return report::vehicle_frames(run());
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
      const double softness = d.positive("softness", 0.5);
      for (int t = 0; t < steps; ++t) model_.control(t, 0, vh::kThrottle) = 1.0;
      auto loss = std::make_unique<vh::AccelerationRunLoss>(1, dt, distance_, softness);
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
    const double gain = d.has("gain") ? d.number("gain") * steer : vh::trace_car(*system_, dt, steps).yaw_rate.back();
    // "metrics" scores the rise time and overshoot themselves; "curve" matches a second-order
    // response with them, which a single-track car cannot follow exactly (see StepMetricsLoss).
    if (d.choice("match", {"curve", "metrics"}, "curve") == "metrics") {
      loss_ = std::make_unique<vh::StepMetricsLoss>(steps, dt, rise_time_, overshoot_, gain);
      return;
    }
    loss_ = std::make_unique<vh::YawResponseLoss>(1, vh::second_order_step(gain, rise_time_, overshoot_, dt, steps + 1),
                                                  std::abs(gain));
  }

  // What the report reads of the scenario.
  report::VehicleRun run() {
    return {*problem_, model_, *system_, *loss_, steps, method_, constants_, initial_, telemetry_, fit_, preset_, run_,
            distance_, rise_time_, overshoot_};
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
  double distance_ = 0.0;                      // of an acceleration run
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

}  // namespace simgrad::scenario
