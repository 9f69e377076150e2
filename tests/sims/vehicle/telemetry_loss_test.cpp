#include "sims/vehicle/telemetry_loss.hpp"

#include <gtest/gtest.h>

#include "core/rollout.hpp"
#include "sims/vehicle/manoeuvre.hpp"

namespace simgrad::vehicle {
namespace {

TelemetryFit windows_of(const Telemetry& t, int steps) {
  TelemetryFit fit;
  fit.steps = steps;
  fit.starts = window_starts(t, steps);
  fit.scale = channel_scales(t);
  fit.weight.fill(1.0);
  return fit;
}

TEST(TelemetryLoss, WindowsCoverTheRecording) {
  Telemetry t;
  t.samples = 101;
  EXPECT_EQ(window_starts(t, 25), (std::vector<int>{0, 25, 50, 75}));
  EXPECT_EQ(window_starts(t, 30), (std::vector<int>{0, 30, 60}));
}

TEST(TelemetryLoss, ZeroAtTheConstantsThatMadeTheRecordingPositiveElsewhere) {
  const VehicleModel truth = published_vehicle("bmw_320i");
  ManoeuvreOptions o;
  o.duration = 4.0;
  const Telemetry t = drive_manoeuvre(truth, o);
  VehicleModel m = truth;
  setup_windows(m, t, windows_of(t, 100));
  ASSERT_EQ(m.cars, 4);
  VehicleBatch system(m);
  TelemetryLoss loss(system, t, windows_of(t, 100));
  // Not exactly zero: the recorded speed is std::hypot, the fitted one a plain square root.
  EXPECT_LT(Rollout(system, loss, m.steps).loss(), 1e-20);
  m.param(kYawInertia) *= 1.1;
  EXPECT_GT(Rollout(system, loss, m.steps).loss(), 1e-8);
}

TEST(TelemetryLoss, ContinuityPenaltyMeasuresTheMismatchBetweenWindows) {
  // One recorded channel, vx, fitted with weight 0: only the continuity term remains.
  Telemetry t;
  t.dt = 0.01;
  t.samples = 21;
  t.present[kChVx] = true;
  t.values[kChVx].assign(21, 10.0);
  t.values[kChVx][10] = 11.0;  // window 1 starts 1 m/s faster than window 0 ends
  VehicleModel m = published_vehicle("bmw_320i");
  m.param(kRollingResistance) = 0.0;
  m.param(kDragCoefficient) = 0.0;
  TelemetryFit fit = windows_of(t, 10);
  fit.weight.fill(0.0);
  fit.scale.fill(1.0);
  fit.continuity_weight = 2.0;
  setup_windows(m, t, fit);
  VehicleBatch system(m);
  TelemetryLoss loss(system, t, fit);
  EXPECT_NEAR(Rollout(system, loss, m.steps).loss(), 2.0 * 1.0 * 1.0, 1e-9);
}

// Least-squares methods see the loss as residuals: their squares, data and continuity alike,
// sum to what the rollout returns.
TEST(TelemetryLoss, ResidualsSquareToTheLoss) {
  const VehicleModel truth = published_vehicle("bmw_320i");
  ManoeuvreOptions o;
  o.duration = 3.0;
  const Telemetry t = drive_manoeuvre(truth, o);
  VehicleModel m = truth;
  TelemetryFit fit = windows_of(t, 50);
  fit.continuity_weight = 0.7;
  setup_windows(m, t, fit);
  m.param(kYawInertia) *= 1.1;
  m.param(kFrontC) *= 0.95;
  VehicleBatch system(m);
  TelemetryLoss loss(system, t, fit);
  std::vector<double> residuals;
  RolloutOptions options;
  options.observer = [&](int step, std::span<const double> state) {
    if (loss.has_term(step, m.steps)) loss.residuals(step, state, residuals);
  };
  const double value = Rollout(system, loss, m.steps, options).loss();
  double sum = 0.0;
  for (double r : residuals) sum += r * r;
  EXPECT_GT(value, 1e-6);
  EXPECT_NEAR(sum, value, 1e-12 * value);
}

}  // namespace
}  // namespace simgrad::vehicle

namespace simgrad::vehicle {
namespace {

TEST(TelemetryLoss, FreeStartsAreTunedAndAnchoredAtStepZero) {
  const VehicleModel truth = published_vehicle("orca");
  ManoeuvreOptions o;
  o.duration = 1.0;
  o.speed_low = 1.0;
  o.speed_high = 2.0;
  const Telemetry t = drive_manoeuvre(truth, o);
  VehicleModel m = truth;
  TelemetryFit fit = windows_of(t, 25);
  fit.free_starts = true;
  setup_windows(m, t, fit);
  tune::BoundParameter starts = bind_window_starts(m, fit.scale);
  ASSERT_EQ(starts.parameter.initial.size(), 4u * 6u);
  EXPECT_EQ(starts.parameter.initial[6 + kVx], 0.0);  // offsets from the recorded starts
  VehicleBatch system(m);
  TelemetryLoss loss(system, t, fit);
  EXPECT_TRUE(loss.has_term(0, 25));
  // Moving window 1's start away from the recording costs at step 0 and in the continuity term.
  std::vector<double> x = starts.parameter.initial;
  const double at_truth = Rollout(system, loss, m.steps).loss();
  x[6 + kVy] += 0.1;
  starts.assign(x);
  EXPECT_DOUBLE_EQ(m.initial_state.values()[kStateSize + kVy], t.values[kChVy][25] + 0.1 * fit.scale[kChVy]);
  Rollout rollout(system, loss, m.steps);
  EXPECT_GT(rollout.loss_and_gradient(), at_truth);
  std::vector<double> g(x.size());
  starts.gradient(g);
  EXPECT_GT(g[6 + kVy], 0.0);
}

}  // namespace
}  // namespace simgrad::vehicle
