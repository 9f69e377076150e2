#pragma once

// L-BFGS with box bounds, in the L-BFGS-B form of Byrd, Lu, Nocedal and Zhu (1995): the
// quadratic model uses the compact limited-memory matrix B = theta I - W M W^T; each iteration
// finds the generalized Cauchy point along the projected steepest-descent path, minimizes the
// model over the variables still free there (direct primal method, step truncated to the box),
// and searches along the resulting feasible direction for a point satisfying the strong Wolfe
// conditions. Every point evaluated lies inside the box.
//
// One iteration is one accepted step; its loss is the loss at the new point. The first
// iteration also evaluates x0. A failed line search drops the memory so that the next iteration
// retries from steepest descent; a failure with no memory to drop ends the run.

#include <Eigen/Core>

#include "tune/optimizer.hpp"

namespace simgrad::tune {

class Lbfgs final : public Optimizer {
 public:
  explicit Lbfgs(OptimizerOptions options = {}) : Optimizer(std::move(options)) {}

  // Name in saved state and reports.
  std::string_view name() const override { return "lbfgs"; }

  // Number of correction pairs currently remembered (at most options().lbfgs_memory).
  int memory_used() const { return static_cast<int>(s_history_.cols()); }

 protected:
  // The Optimizer hooks, documented in optimizer.hpp.
  void on_init(std::span<const double> x0) override;
  double step() override;
  std::span<const double> current() const override { return {x_.data(), std::size_t(x_.size())}; }
  void save_state(StateWriter& writer) const override;
  void load_state(StateReader& reader) override;

 private:
  // The method's fields, listed once for both saving and loading.
  template <class Self, class Archive>
  static void transfer(Self& self, Archive& archive);

  // A feasible point that minimizes the quadratic model: Cauchy point, then subspace step.
  Eigen::VectorXd model_minimizer() const;

  // Strong Wolfe search along x + t d for t in (0, max_step]; on success moves x_, loss_ and
  // gradient_ to the accepted point.
  bool line_search(const Eigen::VectorXd& direction, double max_step, double first_step);

  // Adds the pair (s, y) if it keeps the model positive definite; drops the oldest when full.
  void remember(const Eigen::VectorXd& s, const Eigen::VectorXd& y);

  // Forgets every correction pair, leaving B = I.
  void forget();

  // Ends the run when x_ is stationary; returns whether it did.
  bool converged_at_current();

  Eigen::VectorXd x_;
  Eigen::VectorXd gradient_;
  double loss_ = 0;
  bool started_ = false;  // whether x_ has been evaluated
  Eigen::MatrixXd s_history_;  // n x k, oldest pair first
  Eigen::MatrixXd y_history_;
};

}  // namespace simgrad::tune
