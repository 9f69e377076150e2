#include "sims/vehicle/design_losses.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

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

StepMetrics step_metrics(std::span<const double> response, double dt) {
  const double final = response.back();
  auto first_at = [&](double level) {
    for (std::size_t t = 1; t < response.size(); ++t)
      if ((response[t] - level) * (final > 0 ? 1.0 : -1.0) >= 0.0)
        return (static_cast<double>(t) - (response[t] - level) / (response[t] - response[t - 1])) * dt;
    return static_cast<double>(response.size()) * dt;
  };
  StepMetrics m;
  m.rise_time = first_at(0.9 * final) - first_at(0.1 * final);
  const double peak = final > 0 ? *std::max_element(response.begin(), response.end())
                                : *std::min_element(response.begin(), response.end());
  m.overshoot = peak / final - 1.0;
  return m;
}

}  // namespace simgrad::vehicle
