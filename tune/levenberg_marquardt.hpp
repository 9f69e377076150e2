#pragma once

// Levenberg-Marquardt for losses that are sums of squares, L(x) = |r(x)|^2 (a fit to recorded
// data): each iteration forms the residuals' Jacobian J by forward differences (one rollout per
// parameter, as one batch: under MPI they spread over the processes), then solves (J^T J + lambda diag(J^T J)) d = -J^T r for a step, raising the
// damping lambda until the step lowers the loss and lowering it after each success. Near a good
// fit the step is the Gauss-Newton step, which takes the loss's curvature from J alone and so
// crosses the narrow valleys of correlated constants that stall first-order methods and L-BFGS.
// Parameters at a bound the descent direction pushes against are held there; steps of the others
// are clamped into the bounds.
//
// One iteration is one Jacobian and one accepted step; its loss is the loss at the new point.
// The first iteration also evaluates x0. The objective must supply residuals (Objective::residuals).

#include <Eigen/Core>

#include "tune/optimizer.hpp"

namespace simgrad::tune {

class LevenbergMarquardt final : public Optimizer {
 public:
  explicit LevenbergMarquardt(OptimizerOptions options = {}) : Optimizer(std::move(options)) {}

  // Name in saved state and reports.
  std::string_view name() const override { return "levenberg_marquardt"; }

  // The current damping (relative to the diagonal of J^T J).
  double damping() const { return lambda_; }

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

  // dr/dx at x_ by forward differences, each step taken towards the inside of the box.
  Eigen::MatrixXd jacobian();

  Eigen::VectorXd x_;
  Eigen::VectorXd residuals_;  // r(x_)
  double loss_ = 0;
  double lambda_ = 1e-3;
  bool started_ = false;
};

}  // namespace simgrad::tune
