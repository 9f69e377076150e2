// Tuning runs: a scenario's parameters tuned by a gradient method, one iteration at a time.
//
// The command line's `tune`, the C API and any host program share this loop, so that a run
// started in one and resumed in another continues bit for bit. The run works in the optimizer's
// coordinates (the parameter space's transforms and bounds) on the scenario's problem, counting
// a rollout that goes non-finite as an infinite loss. The caller drives it: iterate(), then
// save, report or stop between iterations.
#pragma once

#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"
#include "tune/optimizer.hpp"
#include "tune/parameter.hpp"
#include "tune/problem.hpp"

namespace simgrad::scenario {

// The optimizers `tune` accepts: the gradient methods, Levenberg-Marquardt and CMA-ES (one
// generation an iteration: a baseline run as a tuning run, and the first half of a hybrid).
bool is_tuning_method(const std::string& optimizer);

class TuningRun {
 public:
  // A run of `options.optimizer` (one is_tuning_method accepts, else std::invalid_argument) from
  // physical parameters x0 (empty: the scenario's initial ones). Evaluates nothing; the scenario
  // must outlive the run.
  TuningRun(Scenario& scenario, const TuneOptions& options, std::span<const double> x0 = {});
  ~TuningRun();
  TuningRun(const TuningRun&) = delete;
  TuningRun& operator=(const TuningRun&) = delete;

  // The loss at the initial parameters: one rollout, evaluated on the first call.
  double initial_loss();
  // Runs one iteration; std::logic_error once finished().
  const tune::IterationRecord& iterate();
  bool finished() const { return optimizer_->finished(); }
  // Ends the run between iterations; `reason` becomes the result's stop reason.
  void stop(std::string reason) { optimizer_->stop(std::move(reason)); }

  // The optimizer's whole state, to resume with load() in a run built the same way, given the
  // initial loss the saved run reported (so that resuming costs no rollout).
  void save(std::ostream& out) const { optimizer_->save(out); }
  void load(std::istream& in, double initial_loss);

  // The run so far, in optimizer coordinates; best_parameters() is its point in physical values.
  tune::OptimizeResult result() const { return optimizer_->result(); }
  std::vector<double> best_parameters() const;
  const std::vector<double>& initial_parameters() const { return x0_; }
  // Rollouts that went non-finite (each counted as an infinite loss).
  long non_finite_rollouts() const { return guarded_.failures(); }
  const TuneOptions& options() const { return options_; }

 private:
  Scenario& scenario_;
  TuneOptions options_;
  tune::NonFiniteAsInfinite guarded_;
  tune::TransformedObjective objective_;
  std::vector<double> x0_;
  std::unique_ptr<tune::Optimizer> optimizer_;
  bool have_initial_loss_ = false;
  double initial_loss_ = 0.0;
};

}  // namespace simgrad::scenario
