// The example telemetry's excitation: its limit-handling events drive the BMW's axles past their
// tires' peak slip and the ORCA's to more than half of it (its peaks, at 83 and 49 degrees, lie
// beyond its steering limit), and a short fit over those events recovers the constants from
// 10-30% off in at most 50 L-BFGS iterations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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

// Both BMW axles go past their peak slip for a while; the ORCA's reach more than half of it,
// where its tires give over 97% of their peak force.
TEST(Excitation, ExampleManoeuvresDriveBothAxlesToTheTiresLimit) {
  const VehicleModel bmw = published_vehicle("bmw_320i");
  const SlipCoverage c = slip_coverage(bmw, drive_manoeuvre(bmw, example_manoeuvre("bmw_320i")));
  EXPECT_GT(c.front_beyond, 0.01);
  EXPECT_GT(c.rear_beyond, 0.01);
  const VehicleModel orca = published_vehicle("orca");
  const SlipCoverage o = slip_coverage(orca, drive_manoeuvre(orca, example_manoeuvre("orca")));
  EXPECT_GT(o.front_max, 0.55);
  EXPECT_GT(o.rear_max, 0.6);
  const double front = 0.55 * peak_slip(2.579, 1.2, 0.0), rear = 0.6 * peak_slip(3.3852, 1.2691, 0.0);
  EXPECT_GT(magic_formula_shape(2.579, 1.2, 1.0, 0.0, front), 0.97);
  EXPECT_GT(magic_formula_shape(3.3852, 1.2691, 1.0, 0.0, rear), 0.97);
}

// How a recovery test fits: the optimizer, its iteration budget, and the sensor noise (seed 0:
// the noiseless recording; otherwise the example's noise, drawn from that seed).
struct Recovery {
  std::string method = "levenberg_marquardt";
  int iterations = 50;
  std::uint64_t noise_seed = 0;
};

// Fits `names` (started off the published values by the factors `start`, or, for a constant whose
// published value is not positive, by the offsets `start`) to the example telemetry of `car`, in
// windows of `window` steps taken only from the limit events (every `every`-th); returns each
// constant's error, relative to its published value (absolute for a zero value).
std::vector<double> recovery_errors(const std::string& car, const std::vector<std::string>& names,
                                    const std::vector<double>& start, int window, int every, const Recovery& how = {}) {
  const VehicleModel truth = published_vehicle(car);
  const ManoeuvreOptions o = example_manoeuvre(car);
  Telemetry telemetry = drive_manoeuvre(truth, o);
  if (how.noise_seed != 0) add_sensor_noise(telemetry, example_sensor_noise(car), how.noise_seed);
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
  EXPECT_TRUE(offer_residuals(problem, loss));
  tune::OptimizerOptions options;
  options.max_iterations = how.iterations;
  auto optimizer = tune::make_optimizer(how.method, options);
  auto objective = problem.space().objective(problem);
  const auto result = tune::minimize(*optimizer, objective, problem.space().to_optimizer(problem.initial()),
                                     problem.space().optimizer_lower(), problem.space().optimizer_upper());
  EXPECT_LE(result.iterations, how.iterations);
  const std::vector<double> x = problem.space().to_physical(result.x);
  std::vector<double> errors;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double value = truth.param(parameter_slots(names[i]).front());
    errors.push_back(std::abs(x[i] - value) / (value == 0.0 ? 1.0 : std::abs(value)));
  }
  return errors;
}

const std::vector<std::string> kBmwConstants = {"tire_B", "tire_C", "tire_D", "tire_E", "yaw_inertia",
                                                "cg_to_front", "drive_gain", "drag_coefficient"};
const std::vector<double> kBmwStart = {0.75, 1.2, 0.85, -0.2, 0.8, 1.1, 0.8, 0.7};

TEST(Excitation, BmwFitRecoversEveryConstantWithinTwoPercent) {
  Recovery lbfgs;
  lbfgs.method = "lbfgs";
  const std::vector<double> errors = recovery_errors("bmw_320i", kBmwConstants, kBmwStart, 25, 1, lbfgs);
  for (std::size_t i = 0; i < kBmwConstants.size(); ++i) EXPECT_LT(errors[i], 0.02) << kBmwConstants[i];
}

const std::vector<std::string> kOrcaConstants = {"front_B", "front_C", "front_D", "front_E", "rear_B", "rear_C",
                                                 "rear_D", "rear_E", "yaw_inertia", "cg_to_front", "drive_gain",
                                                 "drive_speed_loss", "rolling_resistance", "drag_coefficient"};
const std::vector<double> kOrcaStart = {0.8, 1.15, 0.85, 0.1, 1.2, 0.9, 1.15, -0.1, 0.8, 1.05, 0.85, 1.3, 0.8, 1.3};

TEST(Excitation, OrcaFitRecoversEveryConstantWithinTwoPercent) {
  const std::vector<double> errors = recovery_errors("orca", kOrcaConstants, kOrcaStart, 25, 1);
  for (std::size_t i = 0; i < kOrcaConstants.size(); ++i) EXPECT_LT(errors[i], 0.02) << kOrcaConstants[i];
}

}  // namespace
}  // namespace simgrad::vehicle
