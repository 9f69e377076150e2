#include "sims/vehicle/design_losses.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "core/rollout.hpp"
#include "sims/vehicle/smooth.hpp"

namespace simgrad::vehicle {

// dt sigmoid((distance - x) / softness) of one car.
struct AccelerationRunLoss::Body {
  Field<kStateSize> state;
  double scale, distance, softness;

  template <class E>
  typename E::Scalar operator()(E& e) const {
    using S = typename E::Scalar;
    const S x = e.own(state)[kX];
    if (softness == 0.0) return S(value_of(x) < distance ? scale : 0.0);
    return scale * sigmoid((distance - x) / softness);
  }
};

AccelerationRunLoss::AccelerationRunLoss(int cars, double dt, double distance, double softness)
    : kernel_("acceleration_run", cars), cars_(cars), dt_(dt), distance_(distance), softness_(softness) {}

double AccelerationRunLoss::term(int, std::span<const double> state) {
  return kernel_.sum(Body{{const_cast<double*>(state.data()), nullptr, cars_}, dt_ / cars_, distance_, softness_});
}

void AccelerationRunLoss::term_adjoint(int, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  kernel_.sum_adjoint(Body{{const_cast<double*>(state.data()), state_adjoint.data(), cars_}, dt_ / cars_, distance_, softness_},
                      seed);
}

double crossing_time(std::span<const double> x, double dt, double distance) {
  for (std::size_t t = 1; t < x.size(); ++t)
    if (x[t] >= distance) return (static_cast<double>(t) - (x[t] - distance) / (x[t] - x[t - 1])) * dt;
  return static_cast<double>(x.size()) * dt;
}

// factor (r - target)^2 of one car.
struct YawResponseLoss::Body {
  Field<kStateSize> state;
  double target, factor;

  template <class E>
  typename E::Scalar operator()(E& e) const {
    using S = typename E::Scalar;
    const S d = e.own(state)[kYawRate] - target;
    return factor * d * d;
  }
};

YawResponseLoss::YawResponseLoss(int cars, std::vector<double> target, double scale)
    : kernel_("yaw_response", cars),
      cars_(cars),
      target_(std::move(target)),
      factor_(1.0 / (scale * scale * cars * std::max<double>(1.0, static_cast<double>(target_.size()) - 1.0))) {}

double YawResponseLoss::term(int t, std::span<const double> state) {
  return kernel_.sum(Body{{const_cast<double*>(state.data()), nullptr, cars_}, target_[static_cast<std::size_t>(t)], factor_});
}

void YawResponseLoss::term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  kernel_.sum_adjoint(
      Body{{const_cast<double*>(state.data()), state_adjoint.data(), cars_}, target_[static_cast<std::size_t>(t)], factor_},
      seed);
}

std::vector<double> second_order_step(double gain, double rise_time, double overshoot, double dt, int samples) {
  const double l = std::log(overshoot);
  const double zeta = -l / std::sqrt(std::numbers::pi * std::numbers::pi + l * l);
  // The usual fit of the 10-90% rise time of an underdamped second-order system.
  const double omega = (1.0 - 0.4167 * zeta + 2.917 * zeta * zeta) / rise_time;
  const double omega_d = omega * std::sqrt(1.0 - zeta * zeta);
  std::vector<double> r(static_cast<std::size_t>(samples));
  for (int k = 0; k < samples; ++k) {
    const double t = k * dt;
    r[k] = gain * (1.0 - std::exp(-zeta * omega * t) *
                             (std::cos(omega_d * t) + zeta / std::sqrt(1.0 - zeta * zeta) * std::sin(omega_d * t)));
  }
  return r;
}

namespace {

// The first time a step response reaches `fraction` of its final value, interpolated between the
// samples around the crossing (index - 1 and index; index 0: it never does), and the time's
// derivatives with respect to those two samples and the final value.
struct Crossing {
  double time = 0.0;
  std::size_t index = 0;
  double d_sample = 0.0, d_previous = 0.0, d_final = 0.0;
};

Crossing first_crossing(std::span<const double> response, double dt, double fraction) {
  const double final = response.back(), level = fraction * final;
  for (std::size_t t = 1; t < response.size(); ++t) {
    if ((response[t] - level) * (final > 0 ? 1.0 : -1.0) < 0.0) continue;
    // time = (t - u / w) dt with u = r_t - level, w = r_t - r_{t-1}.
    const double u = response[t] - level, w = response[t] - response[t - 1];
    return {(static_cast<double>(t) - u / w) * dt, t, -dt * (w - u) / (w * w), -dt * u / (w * w), fraction * dt / w};
  }
  return {static_cast<double>(response.size()) * dt};
}

// Index of the response's extreme sample on the side of its final value.
std::size_t peak_index(std::span<const double> response) {
  const auto peak = response.back() > 0 ? std::max_element(response.begin(), response.end())
                                        : std::min_element(response.begin(), response.end());
  return static_cast<std::size_t>(peak - response.begin());
}

// The overshoot's normalisation: relative to the target, but not below 1%.
double overshoot_scale(double target) { return std::max(target, 0.01); }

}  // namespace

StepMetrics step_metrics(std::span<const double> response, double dt) {
  StepMetrics m;
  m.rise_time = first_crossing(response, dt, 0.9).time - first_crossing(response, dt, 0.1).time;
  m.overshoot = response[peak_index(response)] / response.back() - 1.0;
  return m;
}

StepMetricsLoss::StepMetricsLoss(int steps, double dt, double rise_time, double overshoot, double gain)
    : steps_(steps),
      dt_(dt),
      rise_time_(rise_time),
      overshoot_(overshoot),
      gain_(gain),
      response_(static_cast<std::size_t>(steps) + 1),
      gradient_(response_.size()) {}

double StepMetricsLoss::term(int t, std::span<const double> state) {
  response_[static_cast<std::size_t>(t)] = state[kYawRate];
  if (t < steps_) return 0.0;
  const StepMetrics m = step_metrics(response_, dt_);
  const double rise = m.rise_time / rise_time_ - 1.0, over = (m.overshoot - overshoot_) / overshoot_scale(overshoot_);
  const double settled = response_.back() / gain_ - 1.0;
  return rise * rise + over * over + settled * settled;
}

void StepMetricsLoss::term_adjoint(int t, std::span<const double>, double seed, std::span<double> state_adjoint) {
  if (t == steps_) {
    std::fill(gradient_.begin(), gradient_.end(), 0.0);
    const StepMetrics m = step_metrics(response_, dt_);
    // d loss / d rise time and d loss / d overshoot, then through the crossings and the peak.
    const double d_rise = 2.0 * (m.rise_time / rise_time_ - 1.0) / rise_time_;
    const double scale = overshoot_scale(overshoot_);
    const double d_over = 2.0 * (m.overshoot - overshoot_) / (scale * scale);
    const std::size_t last = response_.size() - 1;
    for (const auto& [fraction, sign] : {std::pair{0.9, 1.0}, std::pair{0.1, -1.0}}) {
      const Crossing c = first_crossing(response_, dt_, fraction);
      if (c.index == 0) continue;
      gradient_[c.index] += sign * d_rise * c.d_sample;
      gradient_[c.index - 1] += sign * d_rise * c.d_previous;
      gradient_[last] += sign * d_rise * c.d_final;
    }
    // overshoot = r_peak / r_final - 1.
    const std::size_t peak = peak_index(response_);
    const double final = response_[last];
    gradient_[peak] += d_over / final;
    gradient_[last] -= d_over * response_[peak] / (final * final);
    gradient_[last] += 2.0 * (final / gain_ - 1.0) / gain_;
  }
  state_adjoint[kYawRate] += seed * gradient_[static_cast<std::size_t>(t)];
}

CarTrace trace_car(System& system, double dt, int steps) {
  CarTrace trace;
  AccelerationRunLoss none(1, dt, 0.0, 1.0);
  RolloutOptions o;
  o.observer = [&](int, std::span<const double> state) {
    trace.x.push_back(state[kX]);
    trace.yaw_rate.push_back(state[kYawRate]);
  };
  Rollout(system, none, steps, o).loss();
  return trace;
}

}  // namespace simgrad::vehicle
