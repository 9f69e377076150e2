#pragma once

// The loss an optimizer minimizes. One value() is one rollout of the simulation; one
// value_and_gradient() is one rollout plus its backward pass. Optimizers and reports count both,
// because "rollouts to reach a target" is the number the project is judged by.

#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace simgrad::tune {

class Objective {
 public:
  virtual ~Objective() = default;

  // Number of parameters x has.
  virtual std::size_t dimension() const = 0;

  // Loss at x from one rollout.
  virtual double value(std::span<const double> x) = 0;

  // Loss at x and dL/dx written into gradient (same size as x), from a rollout and a backward pass.
  virtual double value_and_gradient(std::span<const double> x, std::span<double> gradient) = 0;

  // The losses at losses.size() points, given row after row in `points` (dimension() values
  // each): what value() gives at each, evaluated as one batch on the process's executor
  // (batch.hpp), which may spread it over processes. Wrappers forward it to their inner objective.
  virtual void values(std::span<const double> points, std::span<double> losses);

  // For a loss that is a sum of squares, L(x) = sum_k r_k(x)^2: replaces `out` with the residuals
  // r(x) from one rollout and returns true. Other losses return false (least-squares methods
  // such as Levenberg-Marquardt then refuse them).
  virtual bool residuals(std::span<const double> x, std::vector<double>& out) {
    (void)x;
    out.clear();
    return false;
  }

  // For a sum of squares: the residuals at each point of `points` (rows of dimension()), as one
  // batch on the process's executor, into `rows` (one row of `width` residuals per point); a
  // point that gives another number of residuals (a rollout that blew up gives one infinite
  // residual) gets a row of +inf. Returns false when the loss is not a sum of squares.
  virtual bool residuals_batch(std::span<const double> points, std::size_t width, std::span<double> rows);
};

// A point's residuals into its row of a residual batch: copied when they fill it, else +inf.
void copy_residuals(std::span<const double> residuals, std::span<double> row);

// Forwards to another objective and counts what it costs, by the project's convention: every
// evaluation is one rollout; a gradient evaluation additionally counts one backward pass.
class CountingObjective final : public Objective {
 public:
  // The inner objective must outlive this wrapper.
  explicit CountingObjective(Objective& inner) : inner_(&inner) {}

  // Same dimension as the wrapped objective.
  std::size_t dimension() const override { return inner_->dimension(); }

  // One rollout.
  double value(std::span<const double> x) override {
    ++rollouts_;
    return inner_->value(x);
  }

  // One rollout per point.
  void values(std::span<const double> points, std::span<double> losses) override {
    rollouts_ += long(losses.size());
    inner_->values(points, losses);
  }

  // One rollout and one backward pass.
  double value_and_gradient(std::span<const double> x, std::span<double> gradient) override {
    ++rollouts_;
    ++gradient_evaluations_;
    return inner_->value_and_gradient(x, gradient);
  }

  // One rollout.
  bool residuals(std::span<const double> x, std::vector<double>& out) override {
    ++rollouts_;
    return inner_->residuals(x, out);
  }

  // One rollout per point.
  bool residuals_batch(std::span<const double> points, std::size_t width, std::span<double> rows) override {
    rollouts_ += long(rows.size() / width);
    return inner_->residuals_batch(points, width, rows);
  }

  // Rollouts so far, gradient evaluations included.
  long rollouts() const { return rollouts_; }

  // Backward passes so far.
  long gradient_evaluations() const { return gradient_evaluations_; }

  // Sets both counters, so that a resumed run keeps counting where the saved one stopped.
  void restore_counts(long rollouts, long gradient_evaluations) {
    rollouts_ = rollouts;
    gradient_evaluations_ = gradient_evaluations;
  }

 private:
  Objective* inner_;
  long rollouts_ = 0;
  long gradient_evaluations_ = 0;
};

// An objective from plain functions, for losses that are not simulations (tests, bindings).
class FunctionObjective final : public Objective {
 public:
  using ValueFunction = std::function<double(std::span<const double>)>;
  using ValueGradientFunction = std::function<double(std::span<const double>, std::span<double>)>;

  // value may be empty: value() then runs value_and_gradient and discards the gradient.
  FunctionObjective(std::size_t dimension, ValueFunction value,
                    ValueGradientFunction value_and_gradient)
      : dimension_(dimension),
        value_(std::move(value)),
        value_and_gradient_(std::move(value_and_gradient)),
        scratch_gradient_(value_ ? 0 : dimension) {
    if (!value_and_gradient_) {
      throw std::invalid_argument("FunctionObjective needs a value_and_gradient function");
    }
  }

  // Fixed at construction.
  std::size_t dimension() const override { return dimension_; }

  // The value function, or the gradient function with its gradient thrown away.
  double value(std::span<const double> x) override {
    if (value_) return value_(x);
    return value_and_gradient_(x, scratch_gradient_);
  }

  // The gradient function.
  double value_and_gradient(std::span<const double> x, std::span<double> gradient) override {
    return value_and_gradient_(x, gradient);
  }

 private:
  std::size_t dimension_;
  ValueFunction value_;
  ValueGradientFunction value_and_gradient_;
  std::vector<double> scratch_gradient_;
};

}  // namespace simgrad::tune
