// Gradients of whole rollouts of a batch of cars (every tunable constant and the windows'
// initial states) against central differences, and bit-for-bit determinism across thread counts
// and checkpoint policies.
#include "sims/vehicle/vehicle_batch.hpp"

#include <gtest/gtest.h>

#include "tests/sims/vehicle/fit_case.hpp"

namespace simgrad::vehicle {
namespace {

TEST(VehicleBatch, GradientOfAPacejkaCarWithEngineTableAndGears) {
  // 8 to 16 m/s crosses the 1-2 and 2-3 shifts.
  FitCase c(published_vehicle("bmw_320i"), short_drive(8.0, 16.0, 6.0), 60);
  expect_fit_gradient(c, all_constants());
}

TEST(VehicleBatch, GradientOfALinearTireCar) {
  VehicleModel truth = published_vehicle("bmw_320i");
  truth.settings.tire = TireModel::kLinear;
  FitCase c(truth, short_drive(12.0, 20.0, 3.0), 60);
  expect_fit_gradient(c, {"mass", "yaw_inertia", "cg_to_front", "cg_height", "front_stiffness", "rear_stiffness",
                          "drive_gain", "drag_coefficient", "brake_force", "brake_front_bias", "final_drive"});
}

TEST(VehicleBatch, GradientOfADcMotorCarThroughTheLowSpeedBlend) {
  // The ORCA between 0.15 and 0.6 m/s: the kinematic-dynamic blend is active.
  VehicleModel truth = published_vehicle("orca");
  truth.settings.blend_low = 0.1;
  truth.settings.blend_high = 0.8;
  FitCase c(truth, short_drive(0.15, 0.6, 2.0), 50);
  expect_fit_gradient(c, all_constants());
}

TEST(VehicleBatch, SharedTireConstantsSumBothAxles) {
  FitCase c(published_vehicle("bmw_320i"), short_drive(10.0, 14.0, 5.0), 60);
  expect_fit_gradient(c, {"tire_B", "tire_C", "tire_D", "tire_E"});
}

TEST(VehicleBatch, SameHashesForEveryThreadCountAndCheckpointPolicy) {
  const Hashes reference = determinism_run(1, "all");
  for (int threads : {1, 2, 4})
    for (const char* policy : {"all", "every:5", "binomial:3"})
      EXPECT_EQ(determinism_run(threads, policy), reference) << threads << " threads, " << policy;
}

}  // namespace
}  // namespace simgrad::vehicle
