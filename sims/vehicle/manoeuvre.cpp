#include "sims/vehicle/manoeuvre.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <numbers>
#include <vector>

#include "core/rng.hpp"
#include "sims/vehicle/telemetry_loss.hpp"
#include "sims/vehicle/vehicle_batch.hpp"

namespace simgrad::vehicle {

Telemetry drive_manoeuvre(VehicleModel model, const ManoeuvreOptions& o) {
  const double dt = model.settings.dt;
  const int steps = static_cast<int>(std::lround(o.duration / dt));
  model.resize(1, steps);
  model.initial_state.values()[kVx] = o.speed_low;
  VehicleBatch car(model);
  Telemetry out;
  out.dt = dt;
  out.samples = steps + 1;
  // Wheel speeds only from a four-wheel car.
  for (int c = 0; c < kChannelCount; ++c) {
    out.present[c] = car.four_wheel() || !is_wheel_channel(c);
    if (out.present[c]) out.values[c].assign(static_cast<std::size_t>(out.samples), 0.0);
  }
  std::vector<double> state(static_cast<std::size_t>(car.state_size())), next(state.size());
  car.initial_state(state);
  double phase = 0.0;
  for (int t = 0; t <= steps; ++t) {
    const double time = t * dt;
    const double u = time / o.duration;
    // Target speed: a cosine between low and high; steering: a chirp asking for a lateral
    // acceleration that rises linearly to lateral_peak, converted with the kinematic relation.
    const double target = o.speed_low + 0.5 * (o.speed_high - o.speed_low) *
                                            (1.0 - std::cos(2.0 * std::numbers::pi * time / o.speed_period));
    const double error = target - state[kVx];
    const double throttle = std::clamp(o.speed_gain * error, 0.0, 1.0);
    const double brake = std::clamp(-o.speed_gain * error, 0.0, 1.0) + 0.0;  // + 0.0: no negative zero
    const double frequency = o.chirp_low + (o.chirp_high - o.chirp_low) * u;
    phase += 2.0 * std::numbers::pi * frequency * dt;
    const double v = std::max(state[kVx], 1.0);
    const double demand = o.lateral_peak * std::min(u / o.ramp_fraction, 1.0);
    const double steer = std::clamp(demand * model.settings.wheelbase / (v * v) * std::sin(phase), -o.max_steer, o.max_steer);
    for (int c = 0; c < kStateSize; ++c) out.values[c][t] = state[c];
    out.values[kChSpeed][t] = std::hypot(state[kVx], state[kVy]);
    if (car.four_wheel())
      for (int i = 0; i < 4; ++i) out.values[kChWheelFL + i][t] = state[kStateSize + static_cast<int>(kWheelSpeed) + i];
    out.values[kChSteering][t] = steer;
    out.values[kChThrottle][t] = throttle;
    out.values[kChBrake][t] = brake;
    if (t == steps) break;
    model.control(t, 0, kSteer) = steer;
    model.control(t, 0, kThrottle) = throttle;
    model.control(t, 0, kBrake) = brake;
    car.step(t, state, next, {});
    state.swap(next);
  }
  return out;
}

void add_sensor_noise(Telemetry& telemetry, const std::array<double, kChannelCount>& sigma, std::uint64_t seed) {
  for (int c = 0; c < kChannelCount; ++c) {
    if (!telemetry.present[c] || sigma[c] == 0.0) continue;
    std::vector<double>& v = telemetry.values[c];
    for (std::size_t i = 0; i < v.size(); ++i) v[i] += sigma[c] * standard_normal(seed, static_cast<std::uint64_t>(c), i);
  }
}

void write_telemetry_csv(const Telemetry& telemetry, std::ostream& out) {
  const auto& names = channel_names();
  out << "time";
  for (int c = 0; c < kChannelCount; ++c) {
    if (!telemetry.present[c]) continue;
    out << ',' << names[c];
    if (c == kChYawRate) out << "_deg_s";
    if (c == kChSpeed) out << "_kmh";
  }
  out << '\n' << std::setprecision(9);
  for (int s = 0; s < telemetry.samples; ++s) {
    out << telemetry.start_time + s * telemetry.dt;
    for (int c = 0; c < kChannelCount; ++c) {
      if (!telemetry.present[c]) continue;
      double v = telemetry.values[c][s];
      if (c == kChYawRate) v *= 180.0 / std::numbers::pi;
      if (c == kChSpeed) v *= 3.6;
      out << ',' << v;
    }
    out << '\n';
  }
}

}  // namespace simgrad::vehicle
