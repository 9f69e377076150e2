#include "sims/vehicle/manoeuvre.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <numbers>
#include <vector>

#include "core/rng.hpp"
#include "sims/vehicle/telemetry_loss.hpp"
#include "sims/vehicle/vehicle_batch.hpp"

namespace simgrad::vehicle {

namespace {

// The driver's controls at one instant.
struct DriverInput {
  double steer = 0.0, throttle = 0.0, brake = 0.0;
};

// Throttle or brake from the speed error, proportionally.
DriverInput hold_speed(double gain, double target, double vx) {
  const double error = target - vx;
  return {0.0, std::clamp(gain * error, 0.0, 1.0), std::clamp(-gain * error, 0.0, 1.0) + 0.0};  // + 0.0: no -0
}

// Linear interpolation from a to b as f runs from f0 to f1.
double ramp(double a, double b, double f, double f0, double f1) { return a + (b - a) * (f - f0) / (f1 - f0); }

// Event k of the limit-handling phase at fraction f of its period (the phases of
// ManoeuvreOptions::events).
DriverInput limit_event(const ManoeuvreOptions& o, int k, double f, double vx) {
  const double a = o.event_steer * (k + 1) / o.events;
  DriverInput in = hold_speed(o.speed_gain, o.event_speed, vx);
  if (f < 0.40) return in;
  if (f >= 0.86) return {};  // coasting: drag against rolling resistance, the motor idle
  if (f < 0.50) in.steer = ramp(0.0, a, f, 0.40, 0.50);
  else if (f < 0.58) in.steer = a;
  else if (f < 0.64) in.steer = ramp(a, -a, f, 0.58, 0.64);
  else if (f < 0.76) in = {-a, 0.0, o.event_brake};
  else in = {ramp(-a, 0.0, f, 0.76, 0.86), 1.0, 0.0};
  return in;
}

}  // namespace

ManoeuvreOptions example_manoeuvre(const std::string& car) {
  ManoeuvreOptions o;
  if (car == "orca") {
    o.duration = 20.0;
    o.speed_low = 1.0;
    o.speed_high = 3.0;
    o.speed_period = 8.0;
    o.lateral_peak = 10.0;
    o.max_steer = 0.35;  // the ORCA's steering limit (Liniger et al.)
    o.chirp_low = 0.3;
    o.chirp_high = 1.5;
    o.speed_gain = 2.0;
    o.events = 6;
    o.event_period = 2.5;
    o.event_speed = 4.5;  // above the top speed (about 4.2 m/s): flat out
    o.event_steer = 0.35;
    o.event_brake = 0.5;
    o.top_speed_run = 6.0;  // the ORCA's drag is a tenth of its rolling resistance: coasting separates them
    return o;
  }
  o.lateral_peak = 16.0;
  o.duration = 40.0;
  o.ramp_fraction = 0.5;  // the second half of the chirp drives at the tires' limit
  o.events = 6;
  o.event_period = 6.0;
  o.event_speed = 22.0;
  o.event_steer = 0.3;
  o.event_brake = 0.4;
  return o;
}

// Sensor noise typical of a GNSS/IMU logger on a road car, and of the ORCA cars' camera tracking
// (positions to millimetres, velocities from differences).
std::array<double, kChannelCount> example_sensor_noise(const std::string& car) {
  if (car == "orca") return {0.002, 0.002, 0.01, 0.02, 0.01, 0.05, 0.1, 0.1, 0.02, 0.0, 0.0, 0.0};
  return {0.05, 0.05, 0.005, 0.05, 0.02, 0.005, 0.05, 0.05, 0.05, 0.0, 0.0, 0.0};
}

Telemetry drive_manoeuvre(VehicleModel model, const ManoeuvreOptions& o) {
  const double dt = model.settings.dt;
  const int chirp_steps = static_cast<int>(std::lround(o.duration / dt));
  const int event_steps = static_cast<int>(std::lround(o.events * o.event_period / dt));
  const int steps = chirp_steps + event_steps + static_cast<int>(std::lround(o.top_speed_run / dt));
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
    DriverInput in;
    if (t < chirp_steps || steps == chirp_steps) {  // the chirp's last sample too when nothing follows
      // Target speed: a cosine between low and high; steering: a chirp asking for a lateral
      // acceleration that rises linearly to lateral_peak, converted with the kinematic relation.
      const double u = time / o.duration;
      const double target = o.speed_low + 0.5 * (o.speed_high - o.speed_low) *
                                              (1.0 - std::cos(2.0 * std::numbers::pi * time / o.speed_period));
      in = hold_speed(o.speed_gain, target, state[kVx]);
      const double frequency = o.chirp_low + (o.chirp_high - o.chirp_low) * u;
      phase += 2.0 * std::numbers::pi * frequency * dt;
      const double v = std::max(state[kVx], 1.0);
      const double demand = o.lateral_peak * std::min(u / o.ramp_fraction, 1.0);
      in.steer = demand * model.settings.wheelbase / (v * v) * std::sin(phase);
    } else if (t >= chirp_steps + event_steps) {
      // Flat out for the first half of the run, then coasting.
      if ((t - chirp_steps - event_steps) * dt < 0.5 * o.top_speed_run) in.throttle = 1.0;
    } else {
      const double since = (t - chirp_steps) * dt / o.event_period;
      const int k = std::min(static_cast<int>(since), o.events - 1);
      in = limit_event(o, k, since - k, state[kVx]);
    }
    const double steer = std::clamp(in.steer, -o.max_steer, o.max_steer);
    for (int c = 0; c < kStateSize; ++c) out.values[c][t] = state[c];
    out.values[kChSpeed][t] = std::hypot(state[kVx], state[kVy]);
    if (car.four_wheel())
      for (int i = 0; i < 4; ++i) out.values[kChWheelFL + i][t] = state[kStateSize + static_cast<int>(kWheelSpeed) + i];
    out.values[kChSteering][t] = steer;
    out.values[kChThrottle][t] = in.throttle;
    out.values[kChBrake][t] = in.brake;
    if (t == steps) break;
    model.control(t, 0, kSteer) = steer;
    model.control(t, 0, kThrottle) = in.throttle;
    model.control(t, 0, kBrake) = in.brake;
    car.step(t, state, next, {});
    state.swap(next);
  }
  return out;
}

double peak_slip(double B, double C, double E) {
  if (C <= 1.0) return std::numeric_limits<double>::infinity();
  // The shape peaks where B x - E (B x - atan(B x)) = tan(pi / (2 C)); the left side rises with
  // x for E < 1, so bisect.
  const double target = std::tan(std::numbers::pi / (2.0 * C));
  auto argument = [&](double x) { return B * x - E * (B * x - std::atan(B * x)); };
  double lo = 0.0, hi = 1.0;
  while (argument(hi) < target && hi < 1e6) hi *= 2.0;
  for (int i = 0; i < 100; ++i) (argument(0.5 * (lo + hi)) < target ? lo : hi) = 0.5 * (lo + hi);
  return 0.5 * (lo + hi);
}

SlipCoverage slip_coverage(const VehicleModel& model, const Telemetry& telemetry) {
  const double lf = model.param(kCgToFront), lr = model.settings.wheelbase - lf;
  const double front_peak = peak_slip(model.param(kFrontB), model.param(kFrontC), model.param(kFrontE));
  const double rear_peak = peak_slip(model.param(kRearB), model.param(kRearC), model.param(kRearE));
  SlipCoverage c;
  for (int s = 0; s < telemetry.samples; ++s) {
    const double vx = std::max(std::abs(telemetry.values[kChVx][s]), model.settings.speed_epsilon);
    const double vy = telemetry.values[kChVy][s], r = telemetry.values[kChYawRate][s];
    const double front = std::abs(telemetry.values[kChSteering][s] - std::atan((vy + lf * r) / vx)) / front_peak;
    const double rear = std::abs(std::atan((vy - lr * r) / vx)) / rear_peak;
    c.front_max = std::max(c.front_max, front);
    c.rear_max = std::max(c.rear_max, rear);
    c.front_beyond += front > 1.0 ? 1.0 : 0.0;
    c.rear_beyond += rear > 1.0 ? 1.0 : 0.0;
  }
  c.front_beyond /= telemetry.samples;
  c.rear_beyond /= telemetry.samples;
  return c;
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
