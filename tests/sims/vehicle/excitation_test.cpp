// The example telemetry's excitation: its limit-handling events drive both axles of both
// published cars past their tires' peak slip, and a short fit over those events recovers the
// tire, inertia, centre-of-mass and drivetrain constants from 10-30% off within 2%.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "sims/vehicle/manoeuvre.hpp"
#include "sims/vehicle/parameters.hpp"
#include "sims/vehicle/telemetry_loss.hpp"
#include "sims/vehicle/tire.hpp"
#include "sims/vehicle/vehicle_batch.hpp"
#include "tune/methods.hpp"
#include "tune/problem.hpp"

namespace simgrad::vehicle {
namespace {

TEST(Excitation, PeakSlipIsWhereTheMagicFormulaPeaks) {
  // E = 0: C atan(B x) = pi / 2 in closed form.
  EXPECT_NEAR(peak_slip(2.579, 1.2, 0.0), std::tan(std::numbers::pi / 2.4) / 2.579, 1e-12);
  // E != 0: the shape's slope vanishes there and the force is D.
  const double B = 12.38, C = 1.3507, D = 1.0489, E = -0.3, x = peak_slip(B, C, E);
  EXPECT_NEAR(magic_formula_shape(B, C, D, E, x), D, 1e-12);
  const double h = 1e-6;
  EXPECT_NEAR((magic_formula_shape(B, C, D, E, x + h) - magic_formula_shape(B, C, D, E, x - h)) / (2 * h), 0.0, 1e-6);
  EXPECT_TRUE(std::isinf(peak_slip(10.0, 1.0, 0.0)));
}

// Every axle of the example manoeuvre goes past its peak slip for a while.
TEST(Excitation, ExampleManoeuvresDriveBothAxlesPastThePeak) {
  for (const std::string car : {"bmw_320i", "orca"}) {
    const VehicleModel model = published_vehicle(car);
    const SlipCoverage c = slip_coverage(model, drive_manoeuvre(model, example_manoeuvre(car)));
    EXPECT_GT(c.front_max, 1.2) << car;
    EXPECT_GT(c.rear_max, 1.2) << car;
    EXPECT_GT(c.front_beyond, 0.005) << car;
    EXPECT_GT(c.rear_beyond, 0.005) << car;
  }
}

// Fits `names` (started off the published values by the factors `start`) to the noiseless
// example telemetry of `car`, in windows of `window` steps taken only from the limit events
// (every `every`-th), with at most 50 L-BFGS iterations; returns each constant's relative error.
}
std::vector<double> recovery_errors(const std::string& car, const std::vector<std::string>& names,
                                    const std::vector<double>& start, int window, int every) {
  const VehicleModel truth = published_vehicle(car);
  const ManoeuvreOptions o = example_manoeuvre(car);
  const Telemetry telemetry = drive_manoeuvre(truth, o);
  if (getenv("WIN")) window = atoi(getenv("WIN"));
  TelemetryFit fit;
  fit.steps = window;
  const int first = static_cast<int>(std::lround(o.duration / truth.settings.dt));
  for (int s = first, k = 0; s + window < telemetry.samples; s += window, ++k)
    if (k % every == 0) fit.starts.push_back(s);
  fit.scale = channel_scales(telemetry);
  for (int c : {kChVx, kChVy, kChYawRate, kChAx, kChAy}) fit.weight[c] = 1.0;
  fit.continuity_weight = 0.0;
  VehicleModel model = truth;
  setup_windows(model, telemetry, fit);
  std::vector<tune::BoundParameter> bound;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double value = truth.param(parameter_slots(names[i]).front());
    const bool signed_value = value <= 0.0;
    bound.push_back(bind_parameter(model, names[i], signed_value ? value - 1.0 : value / 3.0,
                                   signed_value ? value + 1.0 : value * 3.0,
                                   signed_value ? tune::Transform::identity : tune::Transform::log));
    bound.back().parameter.initial = {signed_value ? value + start[i] : value * start[i]};
  }
  VehicleBatch system(model);
  TelemetryLoss loss(system, telemetry, fit);
  tune::RolloutProblem problem(system, loss, window, {}, std::move(bound));
  tune::OptimizerOptions options;
  options.max_iterations = 50;
  if (getenv("MEM")) options.lbfgs_memory = atoi(getenv("MEM"));
  if (getenv("WIN")) window = atoi(getenv("WIN"));
  auto lbfgs = tune::make_optimizer("lbfgs", options);
  auto objective = problem.space().objective(problem);
  const auto result = tune::minimize(*lbfgs, objective, problem.space().to_optimizer(problem.initial()),
                                     problem.space().optimizer_lower(), problem.space().optimizer_upper());
  EXPECT_LE(result.iterations, 50);
  std::printf("DBG %s iters %d loss %g start %g windows %zu stop %s\n", car.c_str(), result.iterations, result.loss, problem.value(problem.initial()), fit.starts.size(), result.stop_reason.c_str());
  const std::vector<double> x = problem.space().to_physical(result.x);
  for (const auto& h : result.history) std::printf("H %d %ld %.3g\n", h.iteration, h.rollouts, h.loss);
  std::vector<double> errors;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double value = truth.param(parameter_slots(names[i]).front());
    errors.push_back(std::abs(x[i] - value) / std::abs(value));
    std::printf("DBG   %s %g vs %g err %g\n", names[i].c_str(), x[i], value, errors.back());
  }
  return errors;
}

namespace {
TEST(Excitation, BmwFitRecoversEveryConstantWithinTwoPercent) {
  const std::vector<std::string> names = {"tire_B", "tire_C", "tire_D", "tire_E", "yaw_inertia",
                                          "cg_to_front", "drive_gain", "drag_coefficient"};
  const std::vector<double> errors =
      recovery_errors("bmw_320i", names, {0.75, 1.2, 0.85, -0.2, 0.8, 1.1, 0.8, 0.7}, 100, 1);
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_LT(errors[i], 0.02) << names[i];
}

TEST(Excitation, OrcaFitRecoversEveryConstantWithinTwoPercent) {
  const std::vector<std::string> names = {"front_B", "front_C", "front_D", "rear_B", "rear_C", "rear_D",
                                          "yaw_inertia", "cg_to_front", "drive_gain", "drive_speed_loss",
                                          "rolling_resistance", "drag_coefficient"};
  const std::vector<double> errors = recovery_errors(
      "orca", names, {0.8, 1.15, 0.85, 1.2, 0.9, 1.15, 0.8, 1.05, 0.85, 1.3, 0.8, 1.3}, 50, 1);
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_LT(errors[i], 0.02) << names[i];
}

}  // namespace
}  // namespace simgrad::vehicle
namespace simgrad::vehicle {
TEST(ExcitationDbg, OrcaDrag) {
  recovery_errors("orca", {"drag_coefficient", "rolling_resistance", "drive_speed_loss"}, {1.3, 0.8, 1.3}, 25, 1);
}
}
