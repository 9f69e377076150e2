#include "tune/levenberg_marquardt.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "tune/box.hpp"
#include "tune/eigen_span.hpp"

namespace simgrad::tune {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr int kMaxDampingRaises = 12;
constexpr double kMinDamping = 1e-12;

}  // namespace

void LevenbergMarquardt::on_init(std::span<const double> x0) {
  x_ = Eigen::Map<const VectorXd>(x0.data(), Index(x0.size()));
  residuals_.resize(0);
  loss_ = std::numeric_limits<double>::infinity();
  lambda_ = 1e-3;
  started_ = false;
}

MatrixXd LevenbergMarquardt::jacobian() {
  const Index n = x_.size(), m = residuals_.size();
  const std::size_t columns = std::size_t(n), rows = std::size_t(m);
  // Each column's shifted point, one batch; a step goes towards the farther bound, so that the
  // shifted point stays inside the box.
  std::vector<double> steps(columns), points(columns * columns), shifted_residuals(columns * rows), losses(columns);
  for (std::size_t i = 0; i < columns; ++i) {
    double h = 1e-6 * std::max(1.0, std::fabs(x_(Index(i))));
    if (x_(Index(i)) + h > upper()[i]) h = -h;
    steps[i] = h;
    std::copy(x_.data(), x_.data() + n, points.begin() + std::ptrdiff_t(i * columns));
    points[i * columns + i] = x_(Index(i)) + h;
  }
  evaluate_residuals_batch(points, rows, shifted_residuals, losses);
  MatrixXd J(m, n);
  std::vector<double> shifted(x_.data(), x_.data() + n), r;
  for (std::size_t i = 0; i < columns; ++i) {
    double h = steps[i];
    std::span<const double> column_residuals(&shifted_residuals[i * rows], rows);
    const double other_side = x_(Index(i)) - h;
    if (!std::isfinite(losses[i]) && other_side >= lower()[i] && other_side <= upper()[i]) {
      // A rollout that blew up (an infinite residual): difference to the other side.
      h = -h;
      shifted[i] = x_(Index(i)) + h;
      losses[i] = evaluate_residuals(shifted, r);
      shifted[i] = x_(Index(i));
      if (r.size() != rows) throw std::runtime_error("levenberg_marquardt: the residuals are not finite next to the current point");
      column_residuals = r;
    }
    if (!std::isfinite(losses[i]))
      throw std::runtime_error("levenberg_marquardt: the residuals are not finite next to the current point");
    for (Index k = 0; k < m; ++k) J(k, Index(i)) = (column_residuals[std::size_t(k)] - residuals_(k)) / h;
  }
  return J;
}

double LevenbergMarquardt::step() {
  std::vector<double> r;
  if (!started_) {
    loss_ = evaluate_residuals(span_of(x_), r);
    residuals_ = Eigen::Map<const VectorXd>(r.data(), Index(r.size()));
    started_ = true;
    if (!std::isfinite(loss_)) {
      converge("loss is not finite at the start");
      return loss_;
    }
    if (loss_ == 0.0 || target_reached()) return loss_;
  }
  const MatrixXd J = jacobian();
  const MatrixXd A = J.transpose() * J;
  const VectorXd g = J.transpose() * residuals_;  // half the loss's gradient
  const VectorXd gradient = 2.0 * g;
  if (!(projected_gradient_norm(span_of(x_), {gradient.data(), std::size_t(gradient.size())}, lower(), upper()) >
        options().gradient_tolerance)) {
    converge("projected gradient below tolerance");
    return loss_;
  }
  // Variables held at a bound the descent direction pushes against stay there; the step solves
  // for the others.
  std::vector<Index> free;
  for (Index i = 0; i < x_.size(); ++i)
    if (!blocked_by_bound(x_(i), gradient(i), lower()[std::size_t(i)], upper()[std::size_t(i)])) free.push_back(i);
  const Index f = Index(free.size());
  MatrixXd A_free(f, f);
  VectorXd g_free(f), scale(f);
  for (Index a = 0; a < f; ++a) {
    g_free(a) = g(free[std::size_t(a)]);
    for (Index b = 0; b < f; ++b) A_free(a, b) = A(free[std::size_t(a)], free[std::size_t(b)]);
  }
  // Marquardt's scaling: damping in proportion to each parameter's own curvature.
  scale = A_free.diagonal();
  const double floor = std::max(scale.size() > 0 ? scale.maxCoeff() : 0.0, 1e-300) * 1e-12;
  for (Index i = 0; i < f; ++i) scale(i) = std::max(scale(i), floor);
  const double old_loss = loss_;
  for (int attempt = 0; attempt < kMaxDampingRaises; ++attempt) {
    MatrixXd M = A_free;
    M.diagonal() += lambda_ * scale;
    const VectorXd step_free = M.ldlt().solve(-g_free);
    VectorXd trial = x_;
    for (Index a = 0; a < f; ++a) trial(free[std::size_t(a)]) += step_free(a);
    project_onto_box(span_of(trial), lower(), upper());
    const double trial_loss = evaluate_residuals(span_of(trial), r);
    if (trial_loss < loss_) {
      x_ = trial;
      residuals_ = Eigen::Map<const VectorXd>(r.data(), Index(r.size()));
      loss_ = trial_loss;
      lambda_ = std::max(lambda_ / 3.0, kMinDamping);
      const double tolerance = options().function_tolerance;
      if (tolerance > 0 && old_loss - loss_ <= tolerance * std::max({std::fabs(old_loss), std::fabs(loss_), 1.0}))
        converge("loss change below function_tolerance");
      return loss_;
    }
    lambda_ *= 4.0;
  }
  converge("no step lowers the loss, however damped");
  return loss_;
}

template <class Self, class Archive>
void LevenbergMarquardt::transfer(Self& self, Archive& archive) {
  archive("x", self.x_);
  archive("residuals", self.residuals_);
  archive("loss", self.loss_);
  archive("damping", self.lambda_);
  archive("started", self.started_);
}

void LevenbergMarquardt::save_state(StateWriter& writer) const { transfer(*this, writer); }

void LevenbergMarquardt::load_state(StateReader& reader) { transfer(*this, reader); }

}  // namespace simgrad::tune
