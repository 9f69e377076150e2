// Losses over a batch of rigid worlds, averaged over the worlds. Each term is optional:
//   reach      w |x_p(T) - target|^2          a body point's distance to a target at the end
//   pose       sum_i w_i (q_i(T) - q*_i)^2    joint coordinates and velocities at the end
//   progress   -w d . (x_b(T) - x_b(0))       how far a body travels along a direction
//   apex       -w (h_b(T) + max(v_b(T), 0)^2 / 2g)   a jump: the height a free body will reach,
//                                             its height h and upward speed v at the end (the
//                                             ballistic apex; constant in free flight, so the
//                                             end need only fall between take-off and landing)
//   effort     w / T sum_t |u_t|^2            the controls' mean squared size (the recorded
//                                             controls', or a controller's signals')
// The per-state terms are written once, generic in the scalar; their adjoint re-runs them on
// the local tape.
#pragma once

#include <span>
#include <vector>

#include "core/system.hpp"
#include "sims/control/controller.hpp"
#include "sims/rigid/tree.hpp"
#include "sims/rigid/workspace.hpp"

namespace simgrad::rigid {

struct RigidLossSettings {
  int reach_body = -1;  // -1: no reach term
  Vec3<double> reach_point = Vec3<double>::zero();  // in the body frame
  Vec3<double> reach_target = Vec3<double>::zero();
  double reach_weight = 1.0;
  std::vector<double> qpos_target, qpos_weight;  // nq each, or empty
  std::vector<double> qvel_target, qvel_weight;  // nv each, or empty
  int progress_body = -1;  // -1: no progress term
  Vec3<double> progress_direction{{1.0, 0.0, 0.0}};
  double progress_weight = 1.0;
  int apex_joint = -1;  // a free joint (its body's origin): -1, no apex term
  double apex_weight = 1.0;
  double effort_weight = 0.0;
};

class RigidLoss : public TrajectoryLoss {
 public:
  RigidLoss(RigidModel& model, RigidLossSettings settings);

  bool has_term(int t, int steps) const override;
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;

  // Charges the effort on `controller`'s signals (as RigidWorlds::set_controller drives them)
  // instead of the recorded controls; null: the recorded controls again.
  void set_controller(control::Controller* controller);

  const RigidLossSettings& settings() const { return settings_; }
  // The effort term alone, of the recorded controls (for reports; a controller's is charged step
  // by step in the rollout).
  double effort() const;
  // The apex term's height (without its weight) in world w's state (for reports).
  double apex(std::span<const double> state, int world) const;
  // A body point's world position in world w's state (for reports and losses).
  Vec3<double> point_position(std::span<const double> state, int world, int body, const Vec3<double>& point) const;

 private:
  // The effort's share of the loss per squared control.
  double effort_scale() const;

  RigidModel& model_;
  RigidTree tree_;
  RigidLossSettings settings_;
  control::Controller* controller_ = nullptr;
  std::vector<double> signals_;  // a controller's signals of one step, and their adjoints
  std::vector<double> signal_adjoints_;
};

}  // namespace simgrad::rigid
