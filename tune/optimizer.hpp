#pragma once

// What every optimizer shares: options, per-iteration records, stop rules, rollout counting,
// best-point tracking and exact save/resume. A method supplies one iteration (step()) and the
// list of its state fields; the caller drives the loop, one iterate() at a time, or lets run()
// and minimize() drive it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tune/objective.hpp"
#include "tune/state_io.hpp"

namespace simgrad::tune {

struct OptimizerOptions {
  // Stop rules, checked between iterations (an iteration in progress is always finished, so a
  // rollout budget can be overrun by one iteration's evaluations).
  int max_iterations = 1000;
  double target_loss = -std::numeric_limits<double>::infinity();
  long max_rollouts = std::numeric_limits<long>::max();
  double gradient_tolerance = 1e-8;  // gradient methods: stop when the projected gradient's
                                     // largest component is this small
  double function_tolerance = 0;     // L-BFGS: stop when one iteration lowers the loss by less
                                     // than this fraction of max(|loss|, 1); 0 disables
  double step_tolerance = 1e-12;     // normalized GD and CMA-ES: stop when the step shrinks below

  // Step sizes.
  double learning_rate = 1e-2;  // Adam's step size; normalized GD's initial step length
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.999;
  double adam_epsilon = 1e-8;
  int lbfgs_memory = 10;
  int line_search_max_evaluations = 20;
  int population_size = 0;   // CMA-ES lambda; 0 picks 4 + floor(3 ln n)
  double initial_sigma = 0;  // CMA-ES initial step; 0 picks 0.3 x the mean width of the finite
                             // bounds, or 1 when no bound is finite

  uint64_t seed = 0;  // CMA-ES samples and random search draws; same seed, same run
};

struct IterationRecord {
  int iteration = 0;   // 1 for the first iteration
  long rollouts = 0;   // total so far, gradient evaluations included
  double loss = std::numeric_limits<double>::quiet_NaN();  // this iteration's loss (see method)
  double best_loss = std::numeric_limits<double>::infinity();  // lowest loss evaluated so far
  double wall_s = 0;   // since init(), summed over resumed sessions
};

struct OptimizeResult {
  std::vector<double> x;  // best point evaluated
  double loss = std::numeric_limits<double>::infinity();  // its loss
  int iterations = 0;
  long rollouts = 0;
  long gradient_evaluations = 0;
  bool reached_target = false;
  double wall_s = 0;
  std::vector<IterationRecord> history;
  std::string stop_reason;
};

// Called after each iteration with its record and the optimizer's current point; returning
// false stops the run.
using IterationCallback = std::function<bool(const IterationRecord&, std::span<const double> x)>;

class Optimizer {
 public:
  explicit Optimizer(OptimizerOptions options) : options_(std::move(options)) {}
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // Short name used in saved state, reports and make_optimizer ("lbfgs", "cmaes", ...).
  virtual std::string_view name() const = 0;

  // Starts a fresh run from x0 (projected into the bounds). Empty lower or upper means
  // unbounded. Evaluates nothing; the objective must outlive the run.
  void init(Objective& objective, std::span<const double> x0, std::span<const double> lower = {},
            std::span<const double> upper = {});

  // Runs one iteration and returns its record; throws std::logic_error once finished().
  const IterationRecord& iterate();

  // Why the run is over, or empty while it may continue. Budgets are judged against the current
  // options, so a resumed run may be given a larger budget.
  std::string stop_reason() const;

  // True once stop_reason() is not empty.
  bool finished() const { return !stop_reason().empty(); }

  // Ends the run from outside (a callback, a signal handler's flag); not saved by save().
  void stop(std::string reason) { external_stop_ = std::move(reason); }

  // The method's current point: the iterate of a gradient method, the CMA-ES mean, the best
  // sample of random search.
  std::span<const double> current_x() const { return current(); }

  // Best point evaluated so far and its loss (infinity before the first evaluation).
  std::span<const double> best_x() const { return best_x_; }
  double best_loss() const { return best_loss_; }

  // Progress so far; rollouts count gradient evaluations too (see objective.hpp).
  int iterations() const { return iterations_; }
  long rollouts() const { return counter_ ? counter_->rollouts() : 0; }
  long gradient_evaluations() const { return counter_ ? counter_->gradient_evaluations() : 0; }

  // One record per iteration, kept across save and load.
  const std::vector<IterationRecord>& history() const { return history_; }

  // As given at construction.
  const OptimizerOptions& options() const { return options_; }

  // Seconds since init(), summed over resumed sessions.
  double wall_seconds() const;

  // Summary of the run so far.
  OptimizeResult result() const;

  // Writes the whole state as labelled hexfloat text.
  void save(std::ostream& out) const;

  // Replaces the state with a saved one; call init() with the same objective first. The run then
  // continues bit-for-bit as the saved one would have.
  void load(std::istream& in);

 protected:
  // Sets up the method's state at x0, which is already inside the bounds.
  virtual void on_init(std::span<const double> x0) = 0;

  // One iteration; returns the loss its record reports.
  virtual double step() = 0;

  // See current_x().
  virtual std::span<const double> current() const = 0;

  // The method's own state fields, after the shared ones.
  virtual void save_state(StateWriter& writer) const = 0;
  virtual void load_state(StateReader& reader) = 0;

  // One rollout at x, which must lie in the bounds; tracks the best point.
  double evaluate(std::span<const double> x);

  // One rollout at each point, row after row in `points` (inside the bounds), as one batch
  // (batch.hpp); tracks the best point as evaluating them one by one in order would.
  void evaluate_batch(std::span<const double> points, std::span<double> losses);

  // One rollout and backward pass at x, which must lie in the bounds; tracks the best point.
  double evaluate_with_gradient(std::span<const double> x, std::span<double> gradient);

  // One rollout at x, which must lie in the bounds, for a least-squares loss: replaces r with
  // the residuals and returns the loss, their sum of squares; tracks the best point. Throws
  // std::invalid_argument when the objective is not a sum of squares.
  double evaluate_residuals(std::span<const double> x, std::vector<double>& r);

  // For a least-squares loss, the residuals at each point (rows inside the bounds) as one batch
  // into `rows` (`width` residuals per point, +inf where a point gave another number) and each
  // point's loss, their sum of squares, into `losses`; tracks the best point as evaluating them
  // one by one in order would. Throws std::invalid_argument when the objective is not a sum of
  // squares.
  void evaluate_residuals_batch(std::span<const double> points, std::size_t width, std::span<double> rows,
                                std::span<double> losses);

  // Ends the run for a method-specific reason (converged, no progress); saved by save().
  void converge(std::string reason) { method_stop_ = std::move(reason); }

  // True once the best loss is at or below the target.
  bool target_reached() const { return best_loss_ <= options_.target_loss; }

  // The problem's size and bounds (infinite where the caller gave none).
  std::size_t dimension() const { return lower_.size(); }
  std::span<const double> lower() const { return lower_; }
  std::span<const double> upper() const { return upper_; }

 private:
  // The shared fields, listed once for both saving and loading.
  template <class Self, class Archive>
  static void transfer(Self& self, Archive& archive);

  // Keeps the best finite loss and its point.
  void note(std::span<const double> x, double loss);

  // Throws std::logic_error unless init() has been called.
  void require_init(std::string_view action) const;

  OptimizerOptions options_;
  std::optional<CountingObjective> counter_;
  std::vector<double> lower_;
  std::vector<double> upper_;
  std::vector<double> best_x_;
  double best_loss_ = std::numeric_limits<double>::infinity();
  int iterations_ = 0;
  std::vector<IterationRecord> history_;
  std::string method_stop_;
  std::string external_stop_;
  double wall_before_ = 0;  // seconds spent in earlier sessions of a resumed run
  std::chrono::steady_clock::time_point session_start_;
};

// Iterates until the optimizer finishes or the callback returns false.
OptimizeResult run(Optimizer& optimizer, const IterationCallback& callback = {});

// init() then run().
OptimizeResult minimize(Optimizer& optimizer, Objective& objective, std::span<const double> x0,
                        std::span<const double> lower = {}, std::span<const double> upper = {},
                        const IterationCallback& callback = {});

}  // namespace simgrad::tune
