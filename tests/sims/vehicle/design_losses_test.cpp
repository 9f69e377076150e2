#include "sims/vehicle/design_losses.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rollout.hpp"
#include "sims/vehicle/tunables.hpp"
#include "tests/sims/vehicle/part_gradient.hpp"

namespace simgrad::vehicle {
namespace {

TEST(DesignLosses, SecondOrderTargetHasTheAskedRiseTimeAndOvershoot) {
  const std::vector<double> r = second_order_step(0.2, 0.3, 0.05, 0.001, 4001);
  const StepMetrics m = step_metrics(r, 0.001);
  EXPECT_NEAR(m.rise_time, 0.3, 0.01);
  EXPECT_NEAR(m.overshoot, 0.05, 1e-3);
  EXPECT_NEAR(r.back(), 0.2, 1e-6);
}

TEST(DesignLosses, CrossingTimeInterpolates) {
  const std::vector<double> x{0.0, 1.0, 3.0, 6.0};
  EXPECT_DOUBLE_EQ(crossing_time(x, 0.5, 2.0), 0.75);
  EXPECT_DOUBLE_EQ(crossing_time(x, 0.5, 10.0), 2.0);
}

// Checks the gradient of a design loss over named constants, in relative coordinates.
void expect_design_gradient(VehicleModel& m, TrajectoryLoss& loss, const std::vector<std::string>& names) {
  VehicleBatch system(m);
  std::vector<tune::BoundParameter> bound;
  for (const std::string& n : names) bound.push_back(tune::bind(vehicle_tunables(), m, n, {}));
  tune::RolloutProblem problem(system, loss, m.steps, {}, std::move(bound));
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  expect_relative_gradient([&](std::span<const double> y) { return problem.value(y); }, x, g, 1e-5, names);
}

TEST(DesignLosses, AccelerationRunGradientInGearsAndFinalDrive) {
  VehicleModel m = published_vehicle("bmw_320i");
  m.resize(1, 600);
  for (int t = 0; t < m.steps; ++t) m.control(t, 0, kThrottle) = 1.0;
  AccelerationRunLoss loss(1, m.settings.dt, 60.0, 2.0);
  expect_design_gradient(m, loss, {"gear_1", "gear_2", "gear_3", "final_drive", "drive_gain", "mass"});
  // The hard twin counts whole steps short of the distance.
  VehicleBatch system(m);
  AccelerationRunLoss hard_loss = loss.hard_twin();
  const double hard = Rollout(system, hard_loss, m.steps).loss();
  EXPECT_NEAR(hard / m.settings.dt, std::round(hard / m.settings.dt), 1e-9);
  EXPECT_GT(hard, 1.0);
}

TEST(DesignLosses, YawResponseGradientInTireConstants) {
  VehicleModel m = published_vehicle("bmw_320i");
  m.resize(1, 150);
  m.initial_state.values()[kVx] = 25.0;
  for (int t = 0; t < m.steps; ++t) m.control(t, 0, kSteer) = 0.02;
  YawResponseLoss loss(1, second_order_step(0.19, 0.25, 0.05, m.settings.dt, m.steps + 1), 0.19);
  expect_design_gradient(m, loss, {"front_B", "rear_B", "front_C", "rear_C", "cg_to_front", "yaw_inertia"});
}

// The metrics loss is zero where the response has the target rise time, overshoot and gain (a
// second-order curve measured by step_metrics) and positive elsewhere.
TEST(DesignLosses, StepMetricsLossVanishesAtTheTargetMetrics) {
  const double dt = 0.01;
  const std::vector<double> r = second_order_step(0.2, 0.3, 0.05, dt, 251);
  const StepMetrics m = step_metrics(r, dt);
  std::vector<double> state(kStateSize, 0.0);
  auto score = [&](StepMetricsLoss& loss) {
    double total = 0.0;
    for (int t = 0; t <= 250; ++t) {
      state[kYawRate] = r[static_cast<std::size_t>(t)];
      total += loss.term(t, state);
    }
    return total;
  };
  StepMetricsLoss exact(250, dt, m.rise_time, m.overshoot, r.back()), slow(250, dt, 1.2 * m.rise_time, m.overshoot, r.back());
  EXPECT_EQ(score(exact), 0.0);
  EXPECT_NEAR(score(slow), std::pow(1.0 / 1.2 - 1.0, 2), 1e-12);
}

TEST(DesignLosses, StepMetricsGradientInTireConstants) {
  VehicleModel m = published_vehicle("bmw_320i");
  m.resize(1, 200);
  m.initial_state.values()[kVx] = 25.0;
  for (int t = 0; t < m.steps; ++t) m.control(t, 0, kSteer) = 0.02;
  StepMetricsLoss loss(m.steps, m.settings.dt, 0.25, 0.05, 0.2);
  expect_design_gradient(m, loss, {"front_B", "rear_B", "front_C", "rear_C", "cg_to_front", "yaw_inertia"});
}

}  // namespace
}  // namespace simgrad::vehicle
