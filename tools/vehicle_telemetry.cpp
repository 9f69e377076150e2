// Writes the example telemetry of examples/vehicle: a published car driven through the
// excitation manoeuvre of sims/vehicle/manoeuvre.hpp, recorded at the simulation step, with or
// without sensor noise. Reproducible: the same arguments give the same file, byte for byte. The
// slip coverage (each axle's largest slip angle over its peak slip, and the share of samples
// beyond the peak) goes to stderr.
//   vehicle_telemetry bmw_320i|orca [--noisy] [--seed N] [--duration S] [--speed_low V] [--speed_high V]
//                     [--lateral_peak A] [--ramp_fraction F] [--max_steer RAD] [--chirp_high HZ]
//                     [--events N] [--event_period S] [--event_speed V] [--event_steer RAD]
//                     [--event_brake B] [--top_speed_run S] > file.csv
#include <array>
#include <cstdlib>
#include <iostream>
#include <iomanip>
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
    ManoeuvreOptions o = example_manoeuvre(car);
    const std::array<double, kChannelCount> sigma = example_sensor_noise(car);
    for (const auto& [name, value] : overrides) {
      if (name == "duration") o.duration = value;
      else if (name == "speed_low") o.speed_low = value;
      else if (name == "speed_high") o.speed_high = value;
      else if (name == "lateral_peak") o.lateral_peak = value;
      else if (name == "ramp_fraction") o.ramp_fraction = value;
      else if (name == "max_steer") o.max_steer = value;
      else if (name == "chirp_high") o.chirp_high = value;
      else if (name == "events") o.events = static_cast<int>(value);
      else if (name == "event_period") o.event_period = value;
      else if (name == "event_speed") o.event_speed = value;
      else if (name == "event_steer") o.event_steer = value;
      else if (name == "event_brake") o.event_brake = value;
      else if (name == "top_speed_run") o.top_speed_run = value;
      else {
        std::cerr << "unknown option --" << name << "\n";
        return 2;
      }
    }
    Telemetry telemetry = drive_manoeuvre(model, o);
    const SlipCoverage coverage = slip_coverage(model, telemetry);
    std::cerr << std::setprecision(3) << "slip / peak slip: front max " << coverage.front_max << " ("
              << 100.0 * coverage.front_beyond << "% of samples beyond), rear max " << coverage.rear_max << " ("
              << 100.0 * coverage.rear_beyond << "% beyond)\n";
    if (noisy) add_sensor_noise(telemetry, sigma, seed);
    write_telemetry_csv(telemetry, std::cout);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  return 0;
}
