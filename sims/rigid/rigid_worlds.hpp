// A batch of rigid worlds (independent copies of one model) as a differentiable system. The state
// is each world's [qpos, qvel, soft nodes] one after another; step t reads each world's controls of step t
// from the model (a step past the last keeps the last). Worlds run in parallel blocks; a world's
// step is rigid_step (step.hpp), and its adjoint re-runs that step on the local tape. Constant
// adjoints are summed over worlds in world order, so gradients are the same bits for any thread
// count.
#pragma once

#include <span>
#include <vector>

#include "core/system.hpp"
#include "sims/control/controller.hpp"
#include "sims/rigid/tree.hpp"
#include "sims/rigid/workspace.hpp"

namespace simgrad::rigid {

class RigidWorlds : public System {
 public:
  explicit RigidWorlds(RigidModel& model);

  Index state_size() const override { return static_cast<Index>(world_state_size()) * model_.worlds; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  // Drives the actuators by `controller` (its signals are the controls, its creatures the
  // worlds) instead of the model's recorded controls; null: the recorded controls again.
  void set_controller(control::Controller* controller);

  RigidModel& model() { return model_; }
  const RigidTree& tree() const { return tree_; }
  int world_state_size() const { return model_.state_size(); }

 private:
  // World w's controls at step t: the controller's signals, else the recorded controls (zeros
  // when the model has none).
  const double* controls(int t, int w) const;
  // With a controller: its signals of step t from `state`, for controls().
  void update_signals(int t, std::span<const double> state);
  // Throws when a world's step failed (singular mass matrix) or produced a non-finite state.
  void check(int t, std::span<const double> next, const std::vector<int>& singular) const;

  RigidModel& model_;
  RigidTree tree_;
  RigidConstants<double> constants_;         // the model's tunables, read once per step
  std::vector<double> constant_adjoints_;    // per world, every constant's adjoint (summed after)
  std::vector<int> singular_;                // per world, whether its last step failed
  std::vector<double> zero_controls_;        // the controls of a model with no steps recorded
  control::Controller* controller_ = nullptr;
  std::vector<double> signals_;              // worlds x actuators: the controller's, this step
  std::vector<double> signal_adjoints_;
};

}  // namespace simgrad::rigid
