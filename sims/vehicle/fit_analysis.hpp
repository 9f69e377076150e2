// Judging a fit to telemetry: how closely each channel matches, and which combinations of the
// tuned constants the data determines (the Gauss-Newton approximation of the loss's Hessian).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/system.hpp"
#include "sims/vehicle/telemetry.hpp"
#include "sims/vehicle/telemetry_loss.hpp"
#include "tune/problem.hpp"

namespace simgrad::vehicle {

// Per-channel RMSE (SI units) of a forward run of `steps` steps of the fit's cars, for the
// channels the recording has and the run compared at least once.
std::array<std::optional<double>, kFitChannels> channel_rmse(System& system, TelemetryLoss& fit,
                                                             const Telemetry& telemetry, int steps);

// One direction of J^T J: its eigenvalue over the largest, whether that is below 1e-8 (the data
// does not determine the direction), and the constants that weigh at least 0.2 in it.
struct GaussNewtonDirection {
  double eigenvalue_ratio = 0.0;
  bool flat = false;
  std::vector<std::pair<std::string, double>> parameters;
};

struct GaussNewtonAnalysis {
  std::vector<GaussNewtonDirection> directions;  // smallest eigenvalue first
  double condition_number = 0.0;
  // 1 / sqrt(H_ii): how far (relative) constant i alone may move for a unit rise of the loss.
  std::vector<std::pair<std::string, double>> relative_sensitivity_inverse;
};

// The Gauss-Newton approximation J^T J of the loss's Hessian in relative parameters
// (d/d log theta) at physical parameters x, its Jacobian J by central differences of the fit's
// residuals (data term and continuity penalty, steps 1 to the problem's last). Over the first
// `constants` parameters only (free window starts held where they are). A constant near zero (a
// Magic Formula E) moves in units of at least a hundredth of its bounds' width: relative to its
// own tiny value it would look flat however well the data fixes it. Leaves the problem at a
// perturbed point.
GaussNewtonAnalysis gauss_newton(tune::RolloutProblem& problem, System& system, TelemetryLoss& fit, int steps,
                                 std::size_t constants, const std::vector<double>& x);

}  // namespace simgrad::vehicle
