// Fitting a batch of cars to telemetry by multiple shooting.
//
// Car k of the batch drives window k: it starts from the recorded state at sample starts[k] and
// follows the recorded controls for `steps` steps. The loss is the weighted mean squared error
// of the fitted channels over all windows and steps, each channel divided by its scale (its
// spread in the recording) so channels of different units weigh alike, plus a continuity
// penalty: the squared, scaled mismatch between window k's last state and window k+1's start.
// Short windows keep gradients from exploding or vanishing over a long recording; a single
// window over the whole recording with a truncated adjoint horizon is the other option.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "core/kernel.hpp"
#include "core/system.hpp"
#include "tune/problem.hpp"
#include "sims/vehicle/telemetry.hpp"
#include "sims/vehicle/vehicle_batch.hpp"

namespace simgrad::vehicle {

// A fitted channel's value in a car's planar state x and (four-wheel) its wheel speeds.
template <class S>
S fit_channel(const CarState<S>& x, const std::array<S, 4>& wheels, int channel) {
  using std::sqrt;
  if (channel == kChSpeed) return sqrt(x[kVx] * x[kVx] + x[kVy] * x[kVy] + 1e-12);
  if (channel >= kChWheelFL) return wheels[channel - kChWheelFL];
  return x[channel];  // the first eight channels are the state's own, in the same order
}

// Whether a channel is a wheel speed (recorded, or fitted, only by the four-wheel model).
inline bool is_wheel_channel(int channel) { return channel >= kChWheelFL && channel <= kChWheelRR; }

struct TelemetryFit {
  std::vector<int> starts;                  // per window: the sample it starts at
  int steps = 0;                            // per window
  std::array<double, kFitChannels> weight{};  // per channel; 0: not fitted
  std::array<double, kFitChannels> scale{};   // per channel: the divisor of its errors
  double continuity_weight = 1.0;
  // Whether the windows' starts are tuned too (true multiple shooting): the data term then also
  // covers step 0, which anchors each start to its recorded state.
  bool free_starts = false;
};

// The default scales: each present channel's standard deviation in the recording (at least 1e-6).
std::array<double, kFitChannels> channel_scales(const Telemetry& telemetry);
// Window starts for windows of `steps` steps over the whole recording (the last that fits ends
// at the last sample).
std::vector<int> window_starts(const Telemetry& telemetry, int steps);
// Sets the model up for the fit: one car per window, its initial state the recorded one (a
// channel that was not recorded starts at 0), its controls the recorded ones.
void setup_windows(VehicleModel& model, const Telemetry& telemetry, const TelemetryFit& fit);
// Binds the windows' starts (pose, velocities and yaw rate of every window, in window order) as
// one tuned parameter "window_start_offset", for multiple shooting with free starts: each
// component is the start's offset from the recorded one in units of its channel's scale, so the
// optimizer sees starts and constants on comparable scales.
tune::BoundParameter bind_window_starts(VehicleModel& model, const std::array<double, kFitChannels>& scale);

class TelemetryLoss;
// Hands `loss`'s residuals to `problem`, so that least-squares methods (Levenberg-Marquardt) can
// fit it.
void offer_residuals(tune::RolloutProblem& problem, const TelemetryLoss& loss);

class TelemetryLoss : public TrajectoryLoss {
 public:
  TelemetryLoss(VehicleBatch& system, const Telemetry& telemetry, TelemetryFit fit);

  bool has_term(int t, int steps) const override { return t >= (fit_.free_starts ? 0 : 1) && t <= steps; }
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;

  const TelemetryFit& fit() const { return fit_; }
  // Adds the squared errors of every channel at step t to sums (per channel) and counts.
  void add_squared_errors(int t, std::span<const double> state, std::array<double, kFitChannels>& sums,
                          std::array<long, kFitChannels>& counts) const;
  // The residuals of step t, whose squares sum to term t: weighted, scaled errors (one per car
  // and fitted channel), and at the last step the continuity penalty's (one per window boundary
  // and state channel). For the Gauss-Newton approximation of the Hessian and least-squares fits.
  void residuals(int t, std::span<const double> state, std::vector<double>& out) const;

 private:
  struct MatchBody;
  struct ContinuityBody;
  MatchBody match_body(int t, std::span<const double> state, double* adjoint) const;
  // Car k's wheel speeds in a rollout state (zeros for the single-track model).
  std::array<double, 4> wheel_speeds(std::span<const double> state, int k) const;
  bool fits_wheels_ = false;  // a wheel-speed channel has a weight
  ContinuityBody continuity_body(std::span<const double> state, double* adjoint) const;

  VehicleBatch& system_;
  TelemetryFit fit_;
  int cars_;
  std::vector<double> reference_;  // (steps + 1) x cars x kFitChannels
  std::array<double, kFitChannels> factor_{};  // weight / scale^2 / (steps cars)
  std::array<double, 6> continuity_factor_{};  // per pose and velocity channel
  Kernel match_;
  Kernel continuity_;
};

}  // namespace simgrad::vehicle
