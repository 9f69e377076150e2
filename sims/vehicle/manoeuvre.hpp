// Reference telemetry from known constants: a driver (speed held by a proportional controller,
// steering a chirp whose amplitude asks for a rising lateral acceleration) drives a car, then
// through limit-handling events of rising steering amplitude, and the states are recorded,
// optionally with Gaussian sensor noise. The chirp sweeps slip angles from linear towards
// saturation and speeds over a range (inertia, drivetrain); the events drive both axles through
// and past the tires' peak slip, where the Magic Formula's B, C and E separate (a manoeuvre that
// stays below the peak sees only the slope B C D and leaves them undetermined).
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>

#include "sims/vehicle/telemetry.hpp"
#include "sims/vehicle/vehicle_model.hpp"

namespace simgrad::vehicle {

struct ManoeuvreOptions {
  double duration = 30.0;       // s
  double speed_low = 10.0;      // m/s; the target speed moves between low and high
  double speed_high = 25.0;
  double speed_period = 12.0;   // s, of the target speed's cycle
  double lateral_peak = 8.0;    // m/s^2, the lateral acceleration asked for at the end
  double chirp_low = 0.2;       // Hz, steering frequency at the start
  double chirp_high = 1.0;      // Hz, at the end
  double speed_gain = 0.5;      // throttle (or brake) per m/s of speed error
  double ramp_fraction = 1.0;   // share of the duration over which the lateral demand rises
  double max_steer = 0.6;       // rad, the steering's limit
  // Limit-handling events after the chirp, each event_period long: the driver settles at
  // event_speed, ramps the steering to +A (the front axle saturates), reverses it to -A (the
  // fishhook that makes the rear axle slide), brakes in the turn, then leaves it with full
  // throttle and the steering straight (power-on exit) and coasts (drag apart from the
  // drivetrain's speed loss). Event k of n steers
  // A = event_steer (k + 1) / n, so the recording crosses each axle's peak at some event.
  int events = 0;
  double event_period = 5.0;    // s
  double event_speed = 20.0;    // m/s
  double event_steer = 0.3;     // rad, amplitude of the last event
  double event_brake = 0.4;     // brake held through the reversed swing
  // s, a run at the end, steering straight: flat out for its first half (the drivetrain
  // against drag at top speed), coasting for the second (drag against rolling resistance).
  double top_speed_run = 0.0;
};

// How far a recording drives each axle's slip angle: the largest |slip| over the axle's peak
// slip, and the share of samples beyond the peak.
struct SlipCoverage {
  double front_max = 0.0, rear_max = 0.0;
  double front_beyond = 0.0, rear_beyond = 0.0;
};

// The slip angle at which a Magic Formula curve peaks (infinity when C <= 1: no peak).
double peak_slip(double B, double C, double E);

// The slip coverage of `telemetry` (vx, vy, yaw rate, steering present) for the car `model`.
SlipCoverage slip_coverage(const VehicleModel& model, const Telemetry& telemetry);

// The excitation manoeuvre of the example telemetry for a published car ("bmw_320i", "orca"),
// and the sensor noise of its noisy variant.
ManoeuvreOptions example_manoeuvre(const std::string& car);
std::array<double, kChannelCount> example_sensor_noise(const std::string& car);

// Drives one car of `model` (its settings and constants; its batch is replaced) from rest at
// speed_low and records every step: all channels, noiseless.
Telemetry drive_manoeuvre(VehicleModel model, const ManoeuvreOptions& options);

// Adds N(0, sigma_c^2) noise to every present channel c with sigma_c > 0, from the counter-based
// generator (same seed, same noise).
void add_sensor_noise(Telemetry& telemetry, const std::array<double, kChannelCount>& sigma, std::uint64_t seed);

// Writes the telemetry as CSV with a header: time in s, the present channels in SI units except
// yaw rate in deg/s and speed in km/h (so that example files exercise unit conversion).
void write_telemetry_csv(const Telemetry& telemetry, std::ostream& out);

}  // namespace simgrad::vehicle
