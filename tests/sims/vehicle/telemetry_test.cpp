#include "sims/vehicle/telemetry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <sstream>

#include "sims/vehicle/manoeuvre.hpp"

namespace simgrad::vehicle {
namespace {

TelemetryOptions at_step(double dt) {
  TelemetryOptions o;
  o.time_column = "t";
  o.dt = dt;
  return o;
}

// The message of the TelemetryError that `f` throws.
template <class F>
TelemetryError error_of(const F& f) {
  try {
    f();
  } catch (const TelemetryError& e) {
    return e;
  }
  ADD_FAILURE() << "no TelemetryError";
  return TelemetryError("", 0, "", "");
}

TEST(Telemetry, WheelSpeedChannelsTakeRadiansPerSecondOrRpm) {
  EXPECT_EQ(channel_of("wheel_speed_rr"), kChWheelRR);
  const Telemetry t = parse_telemetry("t,fl_rpm,rr\n0,600,10\n0.01,630,11\n", "lap.csv",
                                      {{kChWheelFL, "fl_rpm", unit_factor(kChWheelFL, "rpm")}, {kChWheelRR, "rr", 1.0}},
                                      at_step(0.01));
  EXPECT_NEAR(t.values[kChWheelFL][0], 20.0 * std::numbers::pi, 1e-12);
  EXPECT_DOUBLE_EQ(t.values[kChWheelRR][1], 11.0);
  EXPECT_FALSE(t.present[kChWheelFR]);
  EXPECT_THROW(unit_factor(kChWheelFL, "m/s"), std::invalid_argument);
}

TEST(Telemetry, ResamplesLinearlyAndConvertsUnits) {
  const std::string csv =
      "# a comment\n"
      "t, speed_kmh, r_deg, steer\n"
      "0.00, 36, 0, 0.1\n"
      "\n"
      "0.02, 72, 90, 0.3\n"
      "0.04, 72, 180, 0.3\n";
  const Telemetry t = parse_telemetry(csv, "lap.csv",
                                      {{kChSpeed, "speed_kmh", unit_factor(kChSpeed, "km/h")},
                                       {kChYawRate, "r_deg", unit_factor(kChYawRate, "deg/s")},
                                       {kChSteering, "steer", 1.0}},
                                      at_step(0.01));
  ASSERT_EQ(t.samples, 5);
  EXPECT_TRUE(t.present[kChSpeed]);
  EXPECT_FALSE(t.present[kChVx]);
  EXPECT_NEAR(t.values[kChSpeed][0], 10.0, 1e-12);
  EXPECT_NEAR(t.values[kChSpeed][1], 15.0, 1e-12);
  EXPECT_NEAR(t.values[kChSpeed][4], 20.0, 1e-12);
  EXPECT_NEAR(t.values[kChYawRate][3], 0.75 * std::numbers::pi, 1e-12);
  EXPECT_NEAR(t.values[kChSteering][1], 0.2, 1e-12);
}

TEST(Telemetry, UnwrapsYawBeforeInterpolating) {
  const std::string csv = "t,yaw\n0,3.1\n0.02,-3.1\n";
  const Telemetry t = parse_telemetry(csv, "lap.csv", {{kChYaw, "yaw", 1.0}}, at_step(0.01));
  EXPECT_NEAR(t.values[kChYaw][1], 3.1 + 0.5 * (2 * std::numbers::pi - 6.2), 1e-12);
}

TEST(Telemetry, UnitsAndChannelsAreChecked) {
  EXPECT_DOUBLE_EQ(unit_factor(kChAy, "g"), 9.80665);
  EXPECT_THROW(unit_factor(kChAy, "km/h"), std::invalid_argument);
  EXPECT_EQ(channel_of("yaw_rate"), kChYawRate);
  EXPECT_THROW(channel_of("yawrate"), std::invalid_argument);
}

TEST(Telemetry, OutOfOrderTimeIsAnErrorNamingFileLineAndColumn) {
  const std::string csv = "t,vx\n0,1\n0.01,1\n0.005,1\n0.02,1\n";
  const TelemetryError e = error_of([&] { parse_telemetry(csv, "lap.csv", {{kChVx, "vx", 1.0}}, at_step(0.01)); });
  EXPECT_EQ(e.file(), "lap.csv");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.column(), "t");
  EXPECT_NE(std::string(e.what()).find("lap.csv:4: column \"t\""), std::string::npos) << e.what();
  // ... or sorted when the scenario says so.
  TelemetryOptions sort = at_step(0.005);
  sort.order = OrderPolicy::kSort;
  const Telemetry t = parse_telemetry(csv, "lap.csv", {{kChVx, "vx", 1.0}}, sort);
  EXPECT_EQ(t.samples, 5);
}

TEST(Telemetry, GapsAreAnErrorOrBridged) {
  const std::string csv = "t,vx\n0,1\n0.01,2\n0.5,3\n";
  const TelemetryError e = error_of([&] { parse_telemetry(csv, "lap.csv", {{kChVx, "vx", 1.0}}, at_step(0.01)); });
  EXPECT_EQ(e.line(), 4);
  TelemetryOptions bridge = at_step(0.01);
  bridge.gaps = GapPolicy::kInterpolate;
  const Telemetry t = parse_telemetry(csv, "lap.csv", {{kChVx, "vx", 1.0}}, bridge);
  EXPECT_EQ(t.samples, 51);
  EXPECT_NEAR(t.values[kChVx][30], 2.0 + 29.0 / 49.0, 1e-9);
}

TEST(Telemetry, BadFieldsAndMissingColumnsNameLineAndColumn) {
  const TelemetryError bad = error_of([] {
    parse_telemetry("t,vx\n0,1\n0.01,fast\n", "lap.csv", {{kChVx, "vx", 1.0}}, at_step(0.01));
  });
  EXPECT_EQ(bad.line(), 3);
  EXPECT_EQ(bad.column(), "vx");
  const TelemetryError missing = error_of([] {
    parse_telemetry("t,vx\n0,1\n0.01,1\n", "lap.csv", {{kChVy, "vy", 1.0}}, at_step(0.01));
  });
  EXPECT_EQ(missing.line(), 1);
  EXPECT_EQ(missing.column(), "vy");
  const TelemetryError short_row = error_of([] {
    parse_telemetry("t,vx\n0,1\n0.01\n", "lap.csv", {{kChVx, "vx", 1.0}}, at_step(0.01));
  });
  EXPECT_EQ(short_row.line(), 3);
}

TEST(Telemetry, GeneratedCsvReadsBackWithItsUnits) {
  VehicleModel m = published_vehicle("orca");
  ManoeuvreOptions o;
  o.duration = 1.0;
  o.speed_low = 1.0;
  o.speed_high = 2.0;
  const Telemetry written = drive_manoeuvre(m, o);
  std::ostringstream csv;
  write_telemetry_csv(written, csv);
  TelemetryOptions options = at_step(m.settings.dt);
  options.time_column = "time";
  const Telemetry read = parse_telemetry(csv.str(), "orca.csv",
                                         {{kChVy, "vy", 1.0},
                                          {kChYawRate, "yaw_rate_deg_s", unit_factor(kChYawRate, "deg/s")},
                                          {kChSpeed, "speed_kmh", unit_factor(kChSpeed, "km/h")}},
                                         options);
  ASSERT_EQ(read.samples, written.samples);
  for (int s = 0; s < read.samples; ++s) {
    EXPECT_NEAR(read.values[kChVy][s], written.values[kChVy][s], 1e-8);
    EXPECT_NEAR(read.values[kChYawRate][s], written.values[kChYawRate][s], 1e-7);
    EXPECT_NEAR(read.values[kChSpeed][s], written.values[kChSpeed][s], 1e-7);
  }
}

}  // namespace
}  // namespace simgrad::vehicle
