// Fits of a batch of cars to telemetry recorded from the same car, shared by the batch tests of
// both chassis models: whole-rollout gradients against central differences, and the hashes that
// determinism tests compare across thread counts and checkpoint policies.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/vehicle/manoeuvre.hpp"
#include "sims/vehicle/tunables.hpp"
#include "sims/vehicle/telemetry_loss.hpp"
#include "sims/vehicle/vehicle_batch.hpp"
#include "tests/sims/state_hash.hpp"
#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {

// A fit of `model` (its constants perturbed from the recording's) to telemetry recorded from
// the unperturbed car, in windows of `window` steps.
struct FitCase {
  VehicleModel model;
  Telemetry telemetry;
  std::unique_ptr<VehicleBatch> system;
  std::unique_ptr<TelemetryLoss> loss;

  // The recording comes from the truth's single-track model; the fit uses `chassis`.
  FitCase(const VehicleModel& truth, const ManoeuvreOptions& o, int window,
          ChassisModel chassis = ChassisModel::kSingleTrack)
      : model(truth), telemetry(drive_manoeuvre(truth, o)) {
    model.settings.chassis = chassis;
    TelemetryFit fit;
    fit.steps = window;
    fit.starts = window_starts(telemetry, window);
    fit.scale = channel_scales(telemetry);
    for (int c = 0; c < kFitChannels; ++c) fit.weight[c] = 1.0;
    fit.continuity_weight = 0.5;
    model.initial_state.set_differentiable(true);
    setup_windows(model, telemetry, fit);
    // Away from the recording's constants, so that every gradient is non-zero.
    for (int p = 0; p < kTunableCount; ++p) model.params.values()[p] *= 1.0 + 0.01 * ((p % 5) - 2);
    system = std::make_unique<VehicleBatch>(model);
    loss = std::make_unique<TelemetryLoss>(*system, telemetry, fit);
  }
};

// Checks dL/d(constants) and dL/d(initial states) of a fit against central differences.
inline void expect_fit_gradient(FitCase& c, const std::vector<std::string>& names) {
  std::vector<tune::BoundParameter> bound;
  for (const std::string& n : names) bound.push_back(tune::bind(vehicle_tunables(), c.model, n, {}));
  tune::RolloutProblem problem(*c.system, *c.loss, c.model.steps, {}, std::move(bound));
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  expect_relative_gradient([&](std::span<const double> y) { return problem.value(y); }, x, g, 2e-5, names);

  // Initial states of the windows: the adjoint the rollout hands back, against differences.
  GradCheckOptions options;
  options.rtol = 2e-5;
  options.atol = 1e-10;
  problem.value_and_gradient(x, g);
  const std::vector<double> a(c.model.initial_state.adjoints().begin(), c.model.initial_state.adjoints().end());
  auto values = c.model.initial_state.values();
  for (std::size_t i = 0; i < values.size(); i += 3) {
    const double v = values[i], h = 1e-6 * std::max(1.0, std::abs(v));
    values[i] = v + h;
    const double up = problem.value(x);
    values[i] = v - h;
    const double down = problem.value(x);
    values[i] = v;
    EXPECT_TRUE(derivatives_agree(a[i], (up - down) / (2 * h), options)) << "initial state " << i;
  }
}

inline std::vector<std::string> all_constants() {
  std::vector<std::string> names;
  for (int p = 0; p < kTunableCount; ++p) names.push_back(vehicle_tunables()[static_cast<std::size_t>(p)].info.name);
  return names;
}

inline ManoeuvreOptions short_drive(double low, double high, double lateral) {
  ManoeuvreOptions o;
  o.duration = 3.0;
  o.speed_low = low;
  o.speed_high = high;
  o.speed_period = 3.0;
  o.lateral_peak = lateral;
  o.chirp_low = 0.5;
  o.chirp_high = 1.5;
  return o;
}

using simgrad::testing::Hashes;
using simgrad::testing::hash_doubles;

// The hashes of a fit of 1,100 windows (three blocks of cars) of a noisy recording, `steps` steps, run
// with `threads` threads and checkpoint policy `policy`.
inline Hashes determinism_run(int threads, const char* policy, ChassisModel chassis = ChassisModel::kSingleTrack,
                              int steps = 16) {
  set_thread_count(threads);
  ManoeuvreOptions o = short_drive(8.0, 20.0, 7.0);
  o.duration = 11.5;
  VehicleModel truth = published_vehicle("bmw_320i");
  Telemetry telemetry = drive_manoeuvre(truth, o);
  std::array<double, kChannelCount> sigma{};
  sigma.fill(0.02);
  add_sensor_noise(telemetry, sigma, 3);
  TelemetryFit fit;
  fit.steps = steps;
  for (int k = 0; k < 1100; ++k) fit.starts.push_back(k);
  fit.scale = channel_scales(telemetry);
  fit.weight.fill(1.0);
  VehicleModel m = truth;
  m.settings.chassis = chassis;
  m.initial_state.set_differentiable(true);
  setup_windows(m, telemetry, fit);
  VehicleBatch system(m);
  TelemetryLoss loss(system, telemetry, fit);
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(policy);
  Rollout rollout(system, loss, m.steps, options);
  rollout.loss_and_gradient();
  const std::uint64_t g = hash_doubles(m.initial_state.adjoints(), hash_doubles(m.params.adjoints()));
  set_thread_count(0);
  EXPECT_GT(m.cars, 2 * kBlockSize);
  return {hash_doubles(rollout.final_state()), g};
}

}  // namespace simgrad::vehicle
