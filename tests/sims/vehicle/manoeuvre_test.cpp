#include "sims/vehicle/manoeuvre.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace simgrad::vehicle {
namespace {

TEST(Manoeuvre, ReproducibleAndNoiseHasTheAskedSpread) {
  const VehicleModel m = published_vehicle("bmw_320i");
  ManoeuvreOptions o;
  o.duration = 5.0;
  const Telemetry a = drive_manoeuvre(m, o), b = drive_manoeuvre(m, o);
  std::ostringstream csv_a, csv_b;
  write_telemetry_csv(a, csv_a);
  write_telemetry_csv(b, csv_b);
  EXPECT_EQ(csv_a.str(), csv_b.str());
  Telemetry noisy = a;
  std::array<double, kChannelCount> sigma{};
  sigma[kChAy] = 0.1;
  add_sensor_noise(noisy, sigma, 7);
  double sum2 = 0.0;
  for (int s = 0; s < a.samples; ++s) sum2 += std::pow(noisy.values[kChAy][s] - a.values[kChAy][s], 2);
  EXPECT_NEAR(std::sqrt(sum2 / a.samples), 0.1, 0.01);
  EXPECT_EQ(noisy.values[kChVx], a.values[kChVx]);
}

// Every recorded control is finite, with or without limit events and a top-speed run.
TEST(Manoeuvre, RecordedControlsAreFiniteInEveryPhase) {
  const VehicleModel m = published_vehicle("orca");
  ManoeuvreOptions o = example_manoeuvre("orca");
  o.duration = 1.0;
  for (int events : {0, 2})
    for (double run : {0.0, 1.0}) {
      o.events = events;
      o.top_speed_run = run;
      const Telemetry t = drive_manoeuvre(m, o);
      for (int c : {kChSteering, kChThrottle, kChBrake})
        for (double v : t.values[c]) ASSERT_TRUE(std::isfinite(v)) << events << " " << run;
    }
}

TEST(Manoeuvre, DriverHoldsTheTargetSpeedRange) {
  const VehicleModel m = published_vehicle("bmw_320i");
  ManoeuvreOptions o;
  o.duration = 24.0;
  const Telemetry t = drive_manoeuvre(m, o);
  double lo = 1e9, hi = -1e9;
  for (double v : t.values[kChVx]) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GT(lo, o.speed_low - 1.0);
  EXPECT_LT(hi, o.speed_high + 1.0);
  EXPECT_GT(hi, o.speed_high - 2.0);
}

}  // namespace
}  // namespace simgrad::vehicle
