// Losses for inverse design, where there is no recording to match: the time a car takes to
// cover a distance from standstill (tune gears and final drive), and the distance of its yaw
// rate after a step steer from a target second-order response with a given rise time and
// overshoot (tune tire constants).
#pragma once

#include <span>
#include <vector>

#include "core/kernel.hpp"
#include "core/system.hpp"
#include "sims/vehicle/vehicle_batch.hpp"

namespace simgrad::vehicle {

// Sum over steps t >= 1 of dt sigmoid((distance - x_t) / softness), averaged over cars: the time
// spent short of `distance`, relaxed. Its hard twin (softness 0) counts whole steps; the
// crossing time interpolates between them.
class AccelerationRunLoss : public TrajectoryLoss {
 public:
  AccelerationRunLoss(int cars, double dt, double distance, double softness);

  bool has_term(int t, int steps) const override { return t >= 1 && t <= steps; }
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;
  // The hard twin, softness 0: the count of steps short of the distance, times dt.
  AccelerationRunLoss hard_twin() const { return AccelerationRunLoss(cars_, dt_, distance_, 0.0); }

 private:
  struct Body;
  Kernel kernel_;
  int cars_;
  double dt_, distance_, softness_;
};

// The time at which x first reaches `distance` in a trajectory of x positions `dt` apart,
// interpolated linearly; the trajectory's duration plus one step if it never does.
double crossing_time(std::span<const double> x, double dt, double distance);

// Mean over steps t >= 1 and cars of ((r_t - target_t) / scale)^2.
class YawResponseLoss : public TrajectoryLoss {
 public:
  YawResponseLoss(int cars, std::vector<double> target, double scale);

  bool has_term(int t, int steps) const override { return t >= 1 && t <= steps; }
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;

 private:
  struct Body;
  Kernel kernel_;
  int cars_;
  std::vector<double> target_;
  double factor_;
};

// (rise / rise_time - 1)^2 + ((overshoot - target) / max(target, 0.01))^2 + (final / gain - 1)^2
// of car 0's yaw rate over steps 0..steps, its rise time and overshoot measured as step_metrics
// does: the targets themselves, where YawResponseLoss matches one second-order curve that a
// single-track car's response (whose transfer function has a zero) cannot follow, so its closest
// car misses the rise time. The gain term holds the steady-state yaw rate, which the metrics
// alone would trade away (a car that barely turns settles fast). Piecewise smooth: the crossings
// and the peak move between samples. The rollout evaluates every term in step order before any
// adjoint, so the terms record the response and the last one scores it; the last adjoint
// differentiates it for all steps.
class StepMetricsLoss : public TrajectoryLoss {
 public:
  StepMetricsLoss(int steps, double dt, double rise_time, double overshoot, double gain);

  bool has_term(int t, int steps) const override { return t >= 0 && t <= steps; }
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;

 private:
  int steps_;
  double dt_, rise_time_, overshoot_, gain_;
  std::vector<double> response_;  // yaw rate of the last forward run, per step
  std::vector<double> gradient_;  // d loss / d response
};

// The step response of a second-order system of gain `gain`, rising from 10% to 90% in
// `rise_time` with relative overshoot `overshoot` (0 < overshoot < 1), at `samples` times dt apart.
std::vector<double> second_order_step(double gain, double rise_time, double overshoot, double dt, int samples);

// Rise time (10% to 90% of the final value, interpolated) and relative overshoot of a step
// response that starts at 0.
struct StepMetrics {
  double rise_time = 0.0;
  double overshoot = 0.0;
};
StepMetrics step_metrics(std::span<const double> response, double dt);

// Car 0's x position and yaw rate at every step (0 to `steps`) of a forward run of a batch whose
// steps are `dt` seconds, for the figures of a design and the gain of its step response.
struct CarTrace {
  std::vector<double> x, yaw_rate;
};
CarTrace trace_car(System& system, double dt, int steps);

}  // namespace simgrad::vehicle
