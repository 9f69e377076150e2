// Problems: a simulator's rollout, its loss and the parameters being tuned, seen by optimizers
// as an Objective in physical coordinates (ParameterSpace adds the transforms).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rollout.hpp"
#include "tune/objective.hpp"
#include "tune/parameter.hpp"

namespace simgrad::tune {

// A parameter as the tuner sees it, and how it reaches the simulator: `assign` writes physical
// values into the model, `gradient` reads dL/d(values) after a backward pass.
struct BoundParameter {
  Parameter parameter;
  std::function<void(std::span<const double>)> assign;
  std::function<void(std::span<double>)> gradient;
};

// A loss as a function of named, bounded parameters: what `tune`, `grad`, `gradcheck` and
// `compare` work on, whether the loss comes from a rollout or from a static analysis.
class Problem : public Objective {
 public:
  // The parameters' metadata (names, units, bounds, transforms, initial values).
  virtual const ParameterSpace& space() const = 0;
  // The initial physical values, concatenated.
  virtual std::vector<double> initial() const = 0;
  // Writes physical values into the simulator without running it.
  virtual void assign(std::span<const double> x) = 0;
};

// The problem's gradient at x against central differences, each check labelled with its
// component's name; options.random_directions 0 checks every component up to 64 of them and
// 16 random directions beyond.
GradCheckReport check_problem_gradient(Problem& problem, std::span<const double> x, GradCheckOptions options);

// The loss of a rollout as a function of the bound parameters.
class RolloutProblem final : public Problem {
 public:
  RolloutProblem(System& system, TrajectoryLoss& loss, int steps, RolloutOptions options,
                 std::vector<BoundParameter> parameters);

  std::size_t dimension() const override { return dimension_; }
  double value(std::span<const double> x) override;
  double value_and_gradient(std::span<const double> x, std::span<double> gradient) override;

  const ParameterSpace& space() const override { return space_; }
  std::vector<double> initial() const override;
  void assign(std::span<const double> x) override;
  Rollout& rollout() { return rollout_; }
  int steps() const { return steps_; }
  // The length of one state vector.
  Index state_size() const { return system_.state_size(); }
  const RolloutOptions& options() const { return options_; }
  // The loss of another system and loss over this problem's steps and with its options: a twin
  // of this problem's simulator, such as its hard twin, built on a copy of the model after
  // assign(x), so that re-scoring never changes the model this problem tunes.
  double twin_value(System& system, TrajectoryLoss& loss);

  // Shows `observer` every state of one forward pass at x, t = 0..steps, and returns the loss:
  // a trajectory for plots, frames and the C API, without changing the rollout's own options.
  using StateObserver = std::function<void(int t, std::span<const double> state)>;
  double observed_value(std::span<const double> x, const StateObserver& observer);
  // One forward pass at x with the states of every `every`-th step and of the last kept, row
  // after row: a trajectory for plots and for hosts (the C API, Python).
  struct KeptStates {
    double loss = 0.0;
    std::vector<int> steps;
    std::vector<double> states;  // steps.size() x state_size()
  };
  KeptStates kept_states(std::span<const double> x, int every);

  // Appends the residuals of the loss's term at step t of a forward pass.
  using TermResiduals = std::function<void(int t, std::span<const double> state, std::vector<double>& out)>;
  // Declares the loss a sum of squares: every term_t equals the sum of the squares of what
  // `term_residuals` appends for step t, so residuals() can serve least-squares methods.
  void set_term_residuals(TermResiduals term_residuals) { term_residuals_ = std::move(term_residuals); }
  // The residuals of every term, in step order, from one forward pass; false without
  // set_term_residuals.
  bool residuals(std::span<const double> x, std::vector<double>& out) override;

 private:
  System& system_;
  TrajectoryLoss& loss_;
  int steps_;
  RolloutOptions options_;
  TermResiduals term_residuals_;
  std::vector<BoundParameter> parameters_;
  ParameterSpace space_;
  std::size_t dimension_;
  Rollout rollout_;
};

// An objective whose rollouts may blow up (an explicit integrator past its stability limit, a
// black-box sample far from the start): a rollout that raises NonFiniteError counts as an
// infinite loss, which every optimizer treats as a point to back away from, and the error is
// kept for the report. The first evaluation is not guarded: a start that blows up is an error.
class NonFiniteAsInfinite final : public Objective {
 public:
  explicit NonFiniteAsInfinite(Objective& inner) : inner_(&inner) {}

  std::size_t dimension() const override { return inner_->dimension(); }
  double value(std::span<const double> x) override;
  double value_and_gradient(std::span<const double> x, std::span<double> gradient) override;
  // Each point guarded as value() guards it, the batch on the process's executor; the failures
  // of every process are counted (the message kept is the last one this process saw).
  void values(std::span<const double> points, std::span<double> losses) override;
  // A rollout that goes non-finite gives one infinite residual.
  bool residuals(std::span<const double> x, std::vector<double>& out) override;
  // Each point guarded as residuals() guards it, the failures of every process counted.
  bool residuals_batch(std::span<const double> points, std::size_t width, std::span<double> rows) override;

  // How many rollouts went non-finite, and the last one's message.
  long failures() const { return failures_; }
  const std::string& last_failure() const { return last_failure_; }

 private:
  Objective* inner_;
  long failures_ = 0;
  std::string last_failure_;
};

}  // namespace simgrad::tune
