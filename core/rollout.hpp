// Rollouts: T steps of a system forward, and the adjoint pass back through them.
//
// The forward pass computes L = sum_t term_t(s_t). The backward pass runs, for t = T-1 down to
// 0, the step's vector-Jacobian product: a_t = (ds_{t+1}/ds_t)^T a_{t+1} + d term_t/d s_t, with
// a_T = d term_T/d s_T, accumulating parameter adjoints inside the system, and ends with the
// adjoint of the initial state. The states the backward pass needs are kept or recomputed as
// the checkpoint policy says; adjoint steps always run in the same order on the same states, so
// the gradient does not depend on the policy. Under `all` and `every:K` each kept state also
// keeps its step's residual (system.hpp), so that adjoint need not replay the step; under
// binomial:S the system replays it. Under `all`, a system that records its steps (system.hpp)
// keeps step records instead of states, and the backward pass restores each state from the
// next one. The checkpoint memory is kept between calls, since tuning
// takes many gradients.
//
// Diagnostics: the norm of every a_t is recorded; optional clipping of that norm and a
// truncated horizon (the adjoint is cut at every multiple of H steps, as in truncated
// backpropagation through time). A non-finite value raises NonFiniteError naming the step.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/checkpoint.hpp"
#include "core/field.hpp"
#include "core/system.hpp"

namespace simgrad {

struct RolloutOptions {
  CheckpointPolicy checkpoint;
  double clip_adjoint_norm = 0.0;  // 0: no clipping
  int truncate_horizon = 0;        // 0: full horizon
  // Called with every state of the forward pass (for animations and reports).
  std::function<void(int t, std::span<const double> state)> observer;
};

// What a rollout did, for benchmarks and reports.
struct RolloutStats {
  long forward_steps = 0;    // step() calls, recomputation included
  long adjoint_steps = 0;    // step_adjoint() calls
  long stored_states = 0;    // states kept at the peak (checkpoints and working buffers)
  std::size_t stored_bytes = 0;
};

class Rollout {
 public:
  Rollout(System& system, TrajectoryLoss& loss, int steps, RolloutOptions options = {});
  ~Rollout();

  // Runs the forward pass only and returns the loss.
  double loss();
  // Runs forward and backward; returns the loss and leaves the gradient in the system's
  // parameter adjoints (cleared first).
  double loss_and_gradient();

  int steps() const { return steps_; }
  // The last state of the most recent forward pass.
  std::span<const double> final_state() const { return final_; }
  // ||dL/ds_t|| for t = 0..T from the most recent backward pass.
  const std::vector<double>& adjoint_norms() const { return adjoint_norms_; }
  const RolloutStats& stats() const { return stats_; }

 private:
  class StatePool;
  void advance(int from, int to, std::span<double> state, std::span<double> scratch);
  void run_step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual);
  void run_recorded_step(int t, std::span<double> state);
  void adjoint_step(int t, std::span<const double> state, std::span<const double> residual);
  void record_adjoint(int t, std::vector<double>& adjoint);
  void reverse_binomial(int t0, int t1, std::span<double> base, int states, StatePool& pool);
  double term_at(int t, std::span<const double> state);

  System& system_;
  TrajectoryLoss& loss_;
  int steps_;
  RolloutOptions options_;
  Index n_;
  std::vector<double> final_;
  std::vector<double> adjoint_;       // a_{t+1} while processing step t
  std::vector<double> adjoint_next_;  // a_t being accumulated
  std::vector<double> adjoint_norms_;
  RolloutStats stats_;
  std::unique_ptr<StatePool> pool_;
};

}  // namespace simgrad
