// The example telemetry's excitation: its limit-handling events drive the BMW's axles past their
// tires' peak slip and the ORCA's to more than half of it (its peaks, at 83 and 49 degrees, lie
// beyond its steering limit), and fits over those events recover the constants from 10-30% off
// within 2% (noiseless) or 5% (the example's sensor noise) in at most 50 iterations, by L-BFGS
// or by Levenberg-Marquardt.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "sims/vehicle/manoeuvre.hpp"
#include "sims/vehicle/tunables.hpp"
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
  bool whole_recording = false;  // windows over the chirp too, not only the limit events
};

// Fits `names` (started off the published values by the factors `start`, or, for a constant whose
// published value is not positive, by the offsets `start`) to the example telemetry of `car`, in
// windows of `window` steps taken from the limit events (every `every`-th); returns each
// constant's error, relative to its published value (to its bounds' width for a value <= 0).
std::vector<double> recovery_errors(const std::string& car, const std::vector<std::string>& names,
                                    const std::vector<double>& start, int window, int every, const Recovery& how = {}) {
  const VehicleModel truth = published_vehicle(car);
  const ManoeuvreOptions o = example_manoeuvre(car);
  Telemetry telemetry = drive_manoeuvre(truth, o);
  if (how.noise_seed != 0) add_sensor_noise(telemetry, example_sensor_noise(car), how.noise_seed);
  TelemetryFit fit;
  fit.steps = window;
  const int first = how.whole_recording ? 0 : static_cast<int>(std::lround(o.duration / truth.settings.dt));
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
    bound.push_back(tune::bind(vehicle_tunables(), model, names[i],
                               {.lower = signed_value ? value - 1.0 : value / 3.0,
                                .upper = signed_value ? value + 1.0 : value * 3.0,
                                .transform = signed_value ? tune::Transform::identity : tune::Transform::log}));
    bound.back().parameter.initial = {signed_value ? value + start[i] : value * start[i]};
  }
  VehicleBatch system(model);
  TelemetryLoss loss(system, telemetry, fit);
  tune::RolloutProblem problem(system, loss, window, {}, std::move(bound));
  offer_residuals(problem, loss);
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
    // A constant that may lie near zero (a Magic Formula E) against the width of its bounds.
    errors.push_back(std::abs(x[i] - value) / (value <= 0.0 ? 2.0 : value));
  }
  return errors;
}

const std::vector<std::string> kBmwConstants = {"tire_B", "tire_C", "tire_D", "tire_E", "yaw_inertia",
                                                "cg_to_front", "drive_gain", "drag_coefficient"};
const std::vector<double> kBmwStart = {0.75, 1.2, 0.85, -0.2, 0.8, 1.1, 0.8, 0.7};

// Every constant's error under `tolerance`.
void expect_within(const std::vector<std::string>& names, const std::vector<double>& errors, double tolerance) {
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_LT(errors[i], tolerance) << names[i];
}

TEST(Excitation, BmwLbfgsFitRecoversEveryConstantWithinTwoPercent) {
  Recovery lbfgs;
  lbfgs.method = "lbfgs";
  expect_within(kBmwConstants, recovery_errors("bmw_320i", kBmwConstants, kBmwStart, 25, 1, lbfgs), 0.02);
}

TEST(Excitation, BmwLevenbergMarquardtFitRecoversEveryConstantWithinTwoPercent) {
  Recovery lm;
  lm.iterations = 10;
  expect_within(kBmwConstants, recovery_errors("bmw_320i", kBmwConstants, kBmwStart, 25, 1, lm), 0.02);
}

// The example's noise (seed 1, as in bmw_320i_noisy.csv): every constant within 5%.
TEST(Excitation, BmwNoisyFitRecoversEveryConstantWithinFivePercent) {
  Recovery noisy;
  noisy.noise_seed = 1;
  noisy.iterations = 20;
  expect_within(kBmwConstants, recovery_errors("bmw_320i", kBmwConstants, kBmwStart, 25, 1, noisy), 0.05);
}

// The ORCA's front tires peak at 83 degrees of slip, beyond any slip its 0.35 rad steering can
// reach (58% of it): below the peak the front E trades against B and C (the Gauss-Newton report
// calls that direction flat), and from this start a fit that frees it settles in a second minimum,
// E = 0.74 with B and C 25-34% off and a loss of 3e-8 instead of 0. Front E is held at its
// published value (Liniger's model has none); every other constant, rear E included, is recovered.
const std::vector<std::string> kOrcaConstants = {"front_B", "front_C", "front_D", "rear_B", "rear_C",
                                                 "rear_D", "rear_E", "yaw_inertia", "cg_to_front", "drive_gain",
                                                 "drive_speed_loss", "rolling_resistance", "drag_coefficient"};
const std::vector<double> kOrcaStart = {0.8, 1.15, 0.85, 1.2, 0.9, 1.15, -0.1, 0.8, 1.05, 0.85, 1.3, 0.8, 1.3};

TEST(Excitation, OrcaFitRecoversEveryConstantWithinTwoPercent) {
  expect_within(kOrcaConstants, recovery_errors("orca", kOrcaConstants, kOrcaStart, 25, 1), 0.02);
}

// With the example's noise (seed 1, as in orca_noisy.csv) the fit takes the whole recording in
// windows of 4 s, whose noisy starts weigh less than those of short ones. Rear E, which the
// noise leaves undetermined (absolute errors of 0.05-0.2 across seeds), is held too.
TEST(Excitation, OrcaNoisyFitRecoversEveryConstantWithinFivePercent) {
  const std::vector<std::string> names(kOrcaConstants.begin(), kOrcaConstants.end());
  std::vector<std::string> fitted;
  std::vector<double> start;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] != "rear_E") {
      fitted.push_back(names[i]);
      start.push_back(kOrcaStart[i]);
    }
  Recovery noisy;
  noisy.noise_seed = 1;
  noisy.whole_recording = true;
  expect_within(fitted, recovery_errors("orca", fitted, start, 400, 1, noisy), 0.05);
}

}  // namespace
}  // namespace simgrad::vehicle
