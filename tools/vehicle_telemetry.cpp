// Writes the example telemetry of examples/vehicle: a published car driven through the
// excitation manoeuvre of sims/vehicle/manoeuvre.hpp, recorded at the simulation step, with or
// without sensor noise. Reproducible: the same arguments give the same file, byte for byte.
//   vehicle_telemetry bmw_320i|orca [--noisy] [--seed N] [--duration S] [--speed_low V] [--speed_high V]
//                     [--lateral_peak A] [--ramp_fraction F] [--max_steer RAD] [--chirp_high HZ] > file.csv
#include <array>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "sims/vehicle/manoeuvre.hpp"

int main(int argc, char** argv) {
  using namespace simgrad::vehicle;
  if (argc < 2) {
    std::cerr << "usage: vehicle_telemetry bmw_320i|orca [--noisy] [--seed N]\n";
    return 2;
  }
  const std::string car = argv[1];
  bool noisy = false;
  std::uint64_t seed = 1;
  // Manoeuvre overrides, "--name value", applied after the car's defaults.
  std::vector<std::pair<std::string, double>> overrides;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--noisy") noisy = true;
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a.rfind("--", 0) == 0 && i + 1 < argc) overrides.emplace_back(a.substr(2), std::atof(argv[++i]));
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  try {
    const VehicleModel model = published_vehicle(car);
    ManoeuvreOptions o;
    o.lateral_peak = 16.0;
    o.duration = 40.0;
    o.ramp_fraction = 0.5;  // the second half of the recording drives at the tires' limit
    // Sensor noise typical of a GNSS/IMU logger on a road car, and of the ORCA cars' camera
    // tracking (positions to millimetres, velocities from differences).
    std::array<double, kChannelCount> sigma{};
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
      sigma = {0.002, 0.002, 0.01, 0.02, 0.01, 0.05, 0.1, 0.1, 0.02, 0.0, 0.0, 0.0};
    } else {
      sigma = {0.05, 0.05, 0.005, 0.05, 0.02, 0.005, 0.05, 0.05, 0.05, 0.0, 0.0, 0.0};
    }
    for (const auto& [name, value] : overrides) {
      if (name == "duration") o.duration = value;
      else if (name == "speed_low") o.speed_low = value;
      else if (name == "speed_high") o.speed_high = value;
      else if (name == "lateral_peak") o.lateral_peak = value;
      else if (name == "ramp_fraction") o.ramp_fraction = value;
      else if (name == "max_steer") o.max_steer = value;
      else if (name == "chirp_high") o.chirp_high = value;
      else {
        std::cerr << "unknown option --" << name << "\n";
        return 2;
      }
    }
    Telemetry telemetry = drive_manoeuvre(model, o);
    if (noisy) add_sensor_noise(telemetry, sigma, seed);
    write_telemetry_csv(telemetry, std::cout);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  return 0;
}
