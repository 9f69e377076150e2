// Reference telemetry from known constants: a driver (speed held by a proportional controller,
// steering a chirp whose amplitude asks for a rising lateral acceleration) drives a car, and the
// states are recorded, optionally with Gaussian sensor noise. The manoeuvre sweeps slip angles
// from linear into saturation and speeds over a range, so tire shape, inertia and drivetrain
// are all excited (a constant-speed slalom would leave E and the drivetrain undetermined).
#pragma once

#include <array>
#include <cstdint>
#include <ostream>

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
};

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
