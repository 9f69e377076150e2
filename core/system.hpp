// The interface between the engine and a simulator: a differentiable discrete-time system and a
// loss over its trajectory. The rollout (rollout.hpp) drives these; simulators implement them.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>

#include "core/vec.hpp"

namespace simgrad {

// s_{t+1} = step_t(s_t; parameters), s_0 = initial(parameters). A state is a flat array of
// doubles; parameters live inside the system, each with an adjoint array that the adjoint
// methods accumulate into.
//
// A step may also leave a residual: intermediate results (a mass-spring step's gathered node
// forces) that its adjoint would otherwise recompute. The rollout keeps residuals next to the
// states it stores and hands them back to step_adjoint; where it has none (a recomputed
// checkpoint segment under binomial:S) it passes an empty span and the system replays the part
// of the step it needs. A residual holds exactly what the replay would compute, so gradients do
// not depend on which path was taken.
class ProcessSplit;
class Subdomain;

class System {
 public:
  virtual ~System() = default;

  // Number of doubles in a state.
  virtual Index state_size() const = 0;
  // The split this system's model is a part of (core/subdomain.hpp); null: the whole model.
  virtual const Subdomain* subdomain() const { return nullptr; }
  // The split over processes this system is a part of, whatever its shape (null: none).
  virtual const ProcessSplit* split() const { return nullptr; }
  // Writes s_0, computed from the parameters.
  virtual void initial_state(std::span<double> state) = 0;
  // Accumulates parameter adjoints given dL/ds_0.
  virtual void initial_state_adjoint(std::span<const double> state_adjoint) = 0;
  // Number of doubles in a step's residual (0: the adjoint needs nothing beyond the state).
  virtual Index residual_size() const { return 0; }
  // Writes s_{t+1} = step_t(s_t), and the step's residual unless `residual` is empty.
  virtual void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) = 0;
  // Adds (ds_{t+1}/ds_t)^T next_adjoint to state_adjoint and accumulates parameter adjoints;
  // `residual` is what step() left for step t, or empty.
  virtual void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                            std::span<const double> next_adjoint, std::span<double> state_adjoint) = 0;
  // Zeroes every parameter adjoint.
  virtual void clear_adjoints() = 0;

  // Step records, for systems whose step changes little of a large state (an agent model where
  // most agents keep their state on a given day). Under `all` the rollout then keeps, instead of
  // every state, one record per step and restores each state exactly from the next one, going
  // back: the memory of a few states instead of T + 1.
  // Whether step_recorded and undo_step are implemented.
  virtual bool records_steps() const { return false; }
  // Advances s_t to s_{t+1} in place (the record keeps what it overwrites), recording what s_t
  // held wherever s_{t+1} differs and the step's residual. Called for steps 0, 1, ... after
  // clear_records().
  virtual void step_recorded(int /*t*/, std::span<double> /*state*/) {
    throw std::logic_error("step_recorded: this system does not record its steps");
  }
  // Turns s_{t+1} back into s_t in place from step t's record, which must be the latest one
  // kept; writes step t's residual and drops the record.
  virtual void undo_step(int /*t*/, std::span<double> /*state*/, std::span<double> /*residual*/) {}
  // Drops every record (keeping its memory for the next forward pass).
  virtual void clear_records() {}
  // Bytes the records hold at most (their peak since built).
  virtual std::size_t record_bytes() const { return 0; }
};

// L = sum over t of term_t(s_t), for t in [0, steps]; most losses have terms at a few steps only.
class TrajectoryLoss {
 public:
  virtual ~TrajectoryLoss() = default;

  // Whether term_t is present for a rollout of `steps` steps.
  virtual bool has_term(int t, int steps) const = 0;
  // The value of term_t.
  virtual double term(int t, std::span<const double> state) = 0;
  // Adds seed * d term_t / d s_t to state_adjoint (and accumulates any parameter adjoints).
  virtual void term_adjoint(int t, std::span<const double> state, double seed,
                            std::span<double> state_adjoint) = 0;
};

}  // namespace simgrad
