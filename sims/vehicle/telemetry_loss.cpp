#include "sims/vehicle/telemetry_loss.hpp"

#include <cmath>
#include <stdexcept>

namespace simgrad::vehicle {

std::array<double, kFitChannels> channel_scales(const Telemetry& telemetry) {
  std::array<double, kFitChannels> scale;
  scale.fill(1.0);
  for (int c = 0; c < kFitChannels; ++c) {
    if (!telemetry.present[c]) continue;
    const std::vector<double>& v = telemetry.values[c];
    double mean = 0.0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    double var = 0.0;
    for (double x : v) var += (x - mean) * (x - mean);
    scale[c] = std::max(std::sqrt(var / static_cast<double>(v.size())), 1e-6);
  }
  return scale;
}

std::vector<int> window_starts(const Telemetry& telemetry, int steps) {
  std::vector<int> starts;
  for (int s = 0; s + steps < telemetry.samples; s += steps) starts.push_back(s);
  return starts;
}

void setup_windows(VehicleModel& model, const Telemetry& telemetry, const TelemetryFit& fit) {
  if (!telemetry.present[kChVx]) throw std::invalid_argument("the telemetry has no vx channel to start windows from");
  const int cars = static_cast<int>(fit.starts.size());
  model.resize(cars, fit.steps);
  for (int k = 0; k < cars; ++k) {
    const int s0 = fit.starts[k];
    if (s0 < 0 || s0 + fit.steps >= telemetry.samples) throw std::invalid_argument("a window runs past the recording");
    for (int c = 0; c < kStateSize; ++c)
      model.initial_state.values()[k * kStateSize + c] = telemetry.present[c] ? telemetry.values[c][s0] : 0.0;
    for (int t = 0; t < fit.steps; ++t) {
      model.control(t, k, kSteer) = telemetry.present[kChSteering] ? telemetry.values[kChSteering][s0 + t] : 0.0;
      model.control(t, k, kThrottle) = telemetry.present[kChThrottle] ? telemetry.values[kChThrottle][s0 + t] : 0.0;
      model.control(t, k, kBrake) = telemetry.present[kChBrake] ? telemetry.values[kChBrake][s0 + t] : 0.0;
    }
  }
}

tune::BoundParameter bind_window_starts(VehicleModel& model, const std::array<double, kFitChannels>& scale) {
  model.initial_state.set_differentiable(true);
  constexpr int kFree = kYawRate + 1;  // ax, ay of a start are outputs, not state
  std::vector<double> recorded;
  for (int k = 0; k < model.cars; ++k)
    for (int c = 0; c < kFree; ++c) recorded.push_back(model.initial_state.values()[k * kStateSize + c]);
  tune::BoundParameter b;
  b.parameter.name = "window_start_offset";
  b.parameter.unit = "channel scales";
  b.parameter.initial.assign(recorded.size(), 0.0);
  b.assign = [&model, recorded, scale](std::span<const double> x) {
    for (int k = 0; k < model.cars; ++k)
      for (int c = 0; c < kFree; ++c)
        model.initial_state.values()[k * kStateSize + c] = recorded[k * kFree + c] + scale[c] * x[k * kFree + c];
  };
  b.gradient = [&model, scale](std::span<double> g) {
    for (int k = 0; k < model.cars; ++k)
      for (int c = 0; c < kFree; ++c) g[k * kFree + c] = scale[c] * model.initial_state.adjoints()[k * kStateSize + c];
  };
  return b;
}

// The per-step data term: sum over cars and channels of factor_c (channel - reference)^2.
struct TelemetryLoss::MatchBody {
  Field<kStateSize> state;
  Field<kChassisSize> chassis;  // read only when wheel speeds are fitted (four-wheel cars)
  bool wheels = false;
  const double* reference;  // cars x kFitChannels at this step
  const std::array<double, kFitChannels>* factor;

  template <class E>
  typename E::Scalar operator()(E& e) const {
    using S = typename E::Scalar;
    const CarState<S> x = e.own(state);
    std::array<S, 4> w = {S(0.0), S(0.0), S(0.0), S(0.0)};
    if (wheels) {
      const ChassisState<S> q = e.own(chassis);
      for (int i = 0; i < 4; ++i) w[i] = q[kWheelSpeed + i];
    }
    const double* ref = reference + e.index() * kFitChannels;
    S sum = S(0.0);
    for (int c = 0; c < kFitChannels; ++c) {
      if ((*factor)[c] == 0.0) continue;
      const S d = fit_channel(x, w, c) - ref[c];
      sum = sum + (*factor)[c] * d * d;
    }
    return sum;
  }
};

// The continuity penalty between window k's last state and window k+1's start.
struct TelemetryLoss::ContinuityBody {
  Field<kStateSize> state;       // cars 0 .. K-2
  Field<kStateSize> next_start;  // initial states of cars 1 .. K-1
  const std::array<double, 6>* factor;

  template <class E>
  typename E::Scalar operator()(E& e) const {
    using S = typename E::Scalar;
    const CarState<S> x = e.own(state);
    const CarState<S> y = e.own(next_start);
    S sum = S(0.0);
    for (int c = 0; c < 6; ++c) {
      if ((*factor)[c] == 0.0) continue;
      const S d = x[c] - y[c];
      sum = sum + (*factor)[c] * d * d;
    }
    return sum;
  }
};

TelemetryLoss::TelemetryLoss(VehicleBatch& system, const Telemetry& telemetry, TelemetryFit fit)
    : system_(system),
      fit_(std::move(fit)),
      cars_(static_cast<int>(fit_.starts.size())),
      match_("telemetry_match", cars_),
      continuity_("continuity", std::max(cars_ - 1, 0)) {
  reference_.assign(static_cast<std::size_t>(fit_.steps + 1) * cars_ * kFitChannels, 0.0);
  for (int t = 0; t <= fit_.steps; ++t)
    for (int k = 0; k < cars_; ++k)
      for (int c = 0; c < kFitChannels; ++c)
        if (telemetry.present[c])
          reference_[(static_cast<std::size_t>(t) * cars_ + k) * kFitChannels + c] = telemetry.values[c][fit_.starts[k] + t];
  const double terms = static_cast<double>(fit_.steps) * cars_;
  for (int c = 0; c < kFitChannels; ++c) {
    factor_[c] = telemetry.present[c] ? fit_.weight[c] / (fit_.scale[c] * fit_.scale[c] * terms) : 0.0;
    if (is_wheel_channel(c) && factor_[c] != 0.0) fits_wheels_ = true;
  }
  if (fits_wheels_ && !system_.four_wheel())
    throw std::invalid_argument("wheel speed channels can only be fitted by the four-wheel model (\"model\": \"four_wheel\")");
  for (int c = 0; c < 6; ++c)
    continuity_factor_[c] = telemetry.present[c] && cars_ > 1
                                ? fit_.continuity_weight / (fit_.scale[c] * fit_.scale[c] * (cars_ - 1))
                                : 0.0;
}

TelemetryLoss::MatchBody TelemetryLoss::match_body(int t, std::span<const double> state, double* adjoint) const {
  const Index offset = static_cast<Index>(kStateSize) * cars_;
  return {{const_cast<double*>(state.data()), adjoint, cars_},
          {const_cast<double*>(state.data()) + offset, adjoint != nullptr ? adjoint + offset : nullptr, cars_},
          fits_wheels_,
          reference_.data() + static_cast<std::size_t>(t) * cars_ * kFitChannels,
          &factor_};
}

TelemetryLoss::ContinuityBody TelemetryLoss::continuity_body(std::span<const double> state, double* adjoint) const {
  VehicleModel& m = system_.model();
  const Index n = std::max(cars_ - 1, 0);
  double* start_adjoint = m.initial_state.differentiable() ? m.initial_state.adjoints().data() + kStateSize : nullptr;
  return {{const_cast<double*>(state.data()), adjoint, n},
          {m.initial_state.values().data() + kStateSize, start_adjoint, n},
          &continuity_factor_};
}

double TelemetryLoss::term(int t, std::span<const double> state) {
  double value = match_.sum(match_body(t, state, nullptr));
  if (t == fit_.steps && cars_ > 1) value += continuity_.sum(continuity_body(state, nullptr));
  return value;
}

void TelemetryLoss::term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  match_.sum_adjoint(match_body(t, state, state_adjoint.data()), seed);
  if (t == fit_.steps && cars_ > 1) continuity_.sum_adjoint(continuity_body(state, state_adjoint.data()), seed);
}

std::array<double, 4> TelemetryLoss::wheel_speeds(std::span<const double> state, int k) const {
  if (!system_.four_wheel()) return {0.0, 0.0, 0.0, 0.0};
  const double* w = state.data() + static_cast<std::size_t>(kStateSize) * cars_ + k * kChassisSize + kWheelSpeed;
  return {w[0], w[1], w[2], w[3]};
}

void TelemetryLoss::add_squared_errors(int t, std::span<const double> state, std::array<double, kFitChannels>& sums,
                                       std::array<long, kFitChannels>& counts) const {
  for (int k = 0; k < cars_; ++k) {
    CarState<double> x;
    for (int c = 0; c < kStateSize; ++c) x[c] = state[k * kStateSize + c];
    const double* ref = reference_.data() + (static_cast<std::size_t>(t) * cars_ + k) * kFitChannels;
    for (int c = 0; c < kFitChannels; ++c) {
      const double d = fit_channel(x, wheel_speeds(state, k), c) - ref[c];
      sums[c] += d * d;
      ++counts[c];
    }
  }
}

void TelemetryLoss::residuals(int t, std::span<const double> state, std::vector<double>& out) const {
  for (int k = 0; k < cars_; ++k) {
    CarState<double> x;
    for (int c = 0; c < kStateSize; ++c) x[c] = state[k * kStateSize + c];
    const double* ref = reference_.data() + (static_cast<std::size_t>(t) * cars_ + k) * kFitChannels;
    for (int c = 0; c < kFitChannels; ++c)
      if (factor_[c] != 0.0) out.push_back(std::sqrt(factor_[c]) * (fit_channel(x, wheel_speeds(state, k), c) - ref[c]));
  }
  if (t != fit_.steps || cars_ < 2) return;
  // The continuity penalty's: window k's last state against window k + 1's start.
  const auto starts = system_.model().initial_state.values();
  for (int k = 0; k + 1 < cars_; ++k)
    for (int c = 0; c < 6; ++c)
      if (continuity_factor_[c] != 0.0)
        out.push_back(std::sqrt(continuity_factor_[c]) *
                      (state[k * kStateSize + c] - starts[static_cast<std::size_t>(k + 1) * kStateSize + c]));
}

void offer_residuals(tune::RolloutProblem& problem, const TelemetryLoss& loss) {
  problem.set_term_residuals(
      [&loss](int t, std::span<const double> state, std::vector<double>& out) { loss.residuals(t, state, out); });
}

}  // namespace simgrad::vehicle
