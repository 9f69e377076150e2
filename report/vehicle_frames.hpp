// The report's view of a vehicle (simulator "vehicle"): the summary and the frames
// (Scenario::summary() and frames(), scenario/scenario.hpp) of its scenarios.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sims/vehicle/design_losses.hpp"
#include "sims/vehicle/telemetry.hpp"
#include "sims/vehicle/telemetry_loss.hpp"
#include "sims/vehicle/vehicle_batch.hpp"
#include "tune/problem.hpp"

namespace simgrad::report {

// A vehicle scenario as the report sees it: the problem over the model's cars and its loss,
// and either the recording fitted or the design target.
struct VehicleRun {
  tune::RolloutProblem& problem;
  vehicle::VehicleModel& model;
  vehicle::VehicleBatch& system;
  TrajectoryLoss& loss;
  int steps = 0;
  std::string method;  // "multiple_shooting", "truncated", "acceleration_run" or "step_steer"
  std::size_t constants = 0;          // tuned vehicle constants, ahead of any window starts
  const std::vector<double>& initial;  // the problem's initial parameters
  // A fit: the recording, the loss (null for a design) and the preset's constants.
  const vehicle::Telemetry& telemetry;
  vehicle::TelemetryLoss* fit = nullptr;
  const std::vector<double>& preset;
  // A design: the acceleration run's loss (null for a step steer) and distance, or the step
  // steer's target rise time and overshoot.
  const vehicle::AccelerationRunLoss* run = nullptr;
  double distance = 0.0, rise_time = 0.0, overshoot = 0.0;
};

// A fit: the constants against the preset's, the channels' RMSE before and after, and the
// Gauss-Newton analysis of what the data determines; a design: its figures before and after
// (and the target). Leaves the problem at the tuned values the model holds.
nlohmann::json vehicle_summary(const VehicleRun& run);

// The cars' paths (one per window) against the recorded path, and the yaw rate and speed
// channels simulated against recorded, from a run of the model's current values.
nlohmann::json vehicle_frames(const VehicleRun& run);

}  // namespace simgrad::report
