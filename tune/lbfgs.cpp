#include "tune/lbfgs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <Eigen/LU>

#include "tune/box.hpp"
#include "tune/eigen_span.hpp"

namespace simgrad::tune {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
constexpr double kSufficientDecrease = 1e-4;  // Armijo constant c1
constexpr double kCurvature = 0.9;            // strong Wolfe constant c2, usual for quasi-Newton
constexpr double kExpansion = 4.0;            // bracketing growth while the slope stays negative
constexpr double kLongestStep = 1e10;         // stands in for an unbounded ray

// The compact form B = theta I - W M W^T of the limited-memory BFGS matrix (Byrd, Nocedal and
// Schnabel 1994), with W = [Y, theta S] and M the inverse of [[-D, L^T], [L, theta S^T S]].
struct CompactModel {
  double theta = 1.0;
  MatrixXd w;
  MatrixXd m;
};

// Builds the compact form from the stored pairs; no pairs gives B = I.
CompactModel compact_model(const MatrixXd& s, const MatrixXd& y) {
  const Index pairs = s.cols();
  CompactModel model;
  model.w.resize(s.rows(), 2 * pairs);
  model.m.resize(2 * pairs, 2 * pairs);
  if (pairs == 0) return model;
  model.theta = y.col(pairs - 1).squaredNorm() / s.col(pairs - 1).dot(y.col(pairs - 1));
  model.w << y, model.theta * s;
  // lazyProduct: Eigen's blocked product may split long inner sums across OpenMP threads, which
  // would make the bits depend on the thread count.
  const MatrixXd sy = s.transpose().lazyProduct(y);
  const MatrixXd strictly_lower = sy.triangularView<Eigen::StrictlyLower>();
  MatrixXd middle(2 * pairs, 2 * pairs);
  middle.topLeftCorner(pairs, pairs).setZero();
  middle.topLeftCorner(pairs, pairs).diagonal() = -sy.diagonal();
  middle.topRightCorner(pairs, pairs) = strictly_lower.transpose();
  middle.bottomLeftCorner(pairs, pairs) = strictly_lower;
  middle.bottomRightCorner(pairs, pairs) = model.theta * s.transpose().lazyProduct(s);
  model.m = middle.partialPivLu().inverse();
  return model;
}

// Largest t with x + t d inside the box, capped for unbounded rays.
double longest_feasible_step(const VectorXd& x, const VectorXd& d, std::span<const double> lower,
                             std::span<const double> upper) {
  double longest = kLongestStep;
  for (Index i = 0; i < x.size(); ++i) {
    if (d[i] > 0) longest = std::min(longest, (upper[i] - x[i]) / d[i]);
    if (d[i] < 0) longest = std::min(longest, (lower[i] - x[i]) / d[i]);
  }
  return longest;
}

// One line-search evaluation: the step, the point, its loss, gradient and slope along d.
struct Trial {
  double step = 0;
  double loss = 0;
  double slope = 0;
  VectorXd x;
  VectorXd gradient;
};

// Minimizer of the cubic through two trials (Nocedal and Wright, eq. 3.59), kept at least a
// tenth of the interval away from either end; bisection when the cubic is unusable (an infinite
// loss from a rollout that blew up, say).
double interpolated_step(const Trial& a, const Trial& b) {
  const double low = std::min(a.step, b.step);
  const double width = std::fabs(b.step - a.step);
  double step = std::numeric_limits<double>::quiet_NaN();
  if (std::isfinite(a.loss) && std::isfinite(b.loss)) {
    const double d1 = a.slope + b.slope - 3 * (a.loss - b.loss) / (a.step - b.step);
    const double discriminant = d1 * d1 - a.slope * b.slope;
    if (discriminant >= 0) {
      const double d2 = std::copysign(std::sqrt(discriminant), b.step - a.step);
      step = b.step - (b.step - a.step) * (b.slope + d2 - d1) / (b.slope - a.slope + 2 * d2);
    }
  }
  if (!std::isfinite(step)) step = low + 0.5 * width;
  return std::clamp(step, low + 0.1 * width, low + 0.9 * width);
}

}  // namespace

void Lbfgs::on_init(std::span<const double> x0) {
  x_ = Eigen::Map<const VectorXd>(x0.data(), Index(x0.size()));
  gradient_ = VectorXd::Zero(x_.size());
  loss_ = kInfinity;
  started_ = false;
  forget();
}

double Lbfgs::step() {
  if (!started_) {
    loss_ = evaluate_with_gradient(span_of(x_), span_of(gradient_));
    started_ = true;
    if (converged_at_current() || target_reached()) return loss_;
  }
  VectorXd direction = model_minimizer() - x_;
  if (!(gradient_.dot(direction) < 0) && memory_used() > 0) {
    // Rounding can spoil a nearly singular model; steepest descent always descends.
    forget();
    direction = model_minimizer() - x_;
  }
  if (!(gradient_.dot(direction) < 0)) {
    converge("no descent direction inside the bounds");
    return loss_;
  }
  const double max_step = longest_feasible_step(x_, direction, lower(), upper());
  const double first_step =
      memory_used() == 0 ? std::min(1.0 / direction.norm(), max_step) : std::min(1.0, max_step);
  const VectorXd old_x = x_;
  const VectorXd old_gradient = gradient_;
  const double old_loss = loss_;
  if (!line_search(direction, max_step, first_step)) {
    if (memory_used() == 0) {
      converge("line search found no lower loss");
    } else {
      forget();
    }
    return loss_;
  }
  remember(x_ - old_x, gradient_ - old_gradient);
  if (converged_at_current()) return loss_;
  const double tolerance = options().function_tolerance;
  if (tolerance > 0 &&
      old_loss - loss_ <= tolerance * std::max({std::fabs(old_loss), std::fabs(loss_), 1.0})) {
    converge("loss change below function_tolerance");
  }
  return loss_;
}

VectorXd Lbfgs::model_minimizer() const {
  const Index n = x_.size();
  const std::span<const double> lo = lower(), up = upper();
  const CompactModel model = compact_model(s_history_, y_history_);

  // Generalized Cauchy point: breakpoints of the path P(x - t g), where components hit bounds.
  VectorXd d(n);
  std::vector<std::pair<double, Index>> breakpoints;
  for (Index i = 0; i < n; ++i) {
    double hit = kInfinity;
    if (gradient_[i] < 0 && up[i] < kInfinity) hit = (x_[i] - up[i]) / gradient_[i];
    if (gradient_[i] > 0 && lo[i] > -kInfinity) hit = (x_[i] - lo[i]) / gradient_[i];
    d[i] = hit == 0 ? 0.0 : -gradient_[i];
    if (hit > 0 && hit < kInfinity) breakpoints.emplace_back(hit, i);
  }
  std::sort(breakpoints.begin(), breakpoints.end());

  // Walk segment by segment while the model keeps decreasing past the next breakpoint
  // (Byrd et al. 1995, algorithm CP), updating slope and curvature in O(m) per breakpoint.
  VectorXd cauchy = x_;
  VectorXd p = model.w.transpose() * d;
  VectorXd c = VectorXd::Zero(p.size());
  double slope = -d.squaredNorm();
  const double curvature_floor = kEpsilon * model.theta * -slope;
  double curvature = std::max(curvature_floor, -model.theta * slope - p.dot(model.m * p));
  double minimizer_offset = -slope / curvature;
  double segment_start = 0;
  for (const auto& [hit, i] : breakpoints) {
    const double segment = hit - segment_start;
    if (minimizer_offset < segment) break;
    cauchy[i] = d[i] > 0 ? up[i] : lo[i];
    const double moved = cauchy[i] - x_[i];
    const double g = gradient_[i];
    const VectorXd w_i = model.w.row(i).transpose();
    const VectorXd m_w = model.m * w_i;  // M is symmetric, so w_i^T M = (M w_i)^T
    c += segment * p;
    slope += segment * curvature + g * g + model.theta * g * moved - g * m_w.dot(c);
    curvature -= model.theta * g * g + 2 * g * m_w.dot(p) + g * g * m_w.dot(w_i);
    curvature = std::max(curvature_floor, curvature);
    p += g * w_i;
    d[i] = 0;
    minimizer_offset = -slope / curvature;
    segment_start = hit;
  }
  const double cauchy_step = segment_start + std::max(minimizer_offset, 0.0);
  for (Index i = 0; i < n; ++i) {
    if (d[i] != 0) cauchy[i] = x_[i] + cauchy_step * d[i];
  }
  c += std::max(minimizer_offset, 0.0) * p;
  project_onto_box(span_of(cauchy), lo, up);

  // Subspace minimization over the variables still free at the Cauchy point (direct primal
  // method, Byrd et al. 1995 section 5.1), then truncation of the step to the box.
  std::vector<Index> free;
  for (Index i = 0; i < n; ++i) {
    if (lo[i] < cauchy[i] && cauchy[i] < up[i]) free.push_back(i);
  }
  if (free.empty()) return cauchy;
  const Index free_count = Index(free.size());
  const VectorXd w_m_c = model.w * (model.m * c);
  VectorXd reduced_gradient(free_count);
  MatrixXd w_free(free_count, model.w.cols());
  for (Index j = 0; j < free_count; ++j) {
    const Index i = free[j];
    reduced_gradient[j] = gradient_[i] + model.theta * (cauchy[i] - x_[i]) - w_m_c[i];
    w_free.row(j) = model.w.row(i);
  }
  VectorXd free_step = -reduced_gradient / model.theta;
  if (model.m.rows() > 0) {
    // Sherman-Morrison-Woodbury on the reduced matrix theta I - Z^T W M W^T Z.
    const MatrixXd inner = MatrixXd::Identity(model.m.rows(), model.m.cols()) -
                           model.m * w_free.transpose().lazyProduct(w_free) / model.theta;
    const VectorXd v = inner.partialPivLu().solve(model.m * (w_free.transpose() * reduced_gradient));
    free_step -= w_free * v / (model.theta * model.theta);
  }
  double fraction = 1.0;
  for (Index j = 0; j < free_count; ++j) {
    const Index i = free[j];
    if (free_step[j] > 0) fraction = std::min(fraction, (up[i] - cauchy[i]) / free_step[j]);
    if (free_step[j] < 0) fraction = std::min(fraction, (lo[i] - cauchy[i]) / free_step[j]);
  }
  VectorXd minimizer = cauchy;
  for (Index j = 0; j < free_count; ++j) minimizer[free[j]] += fraction * free_step[j];
  project_onto_box(span_of(minimizer), lo, up);
  return minimizer;
}

bool Lbfgs::line_search(const VectorXd& direction, double max_step, double first_step) {
  const double loss0 = loss_;
  const double slope0 = gradient_.dot(direction);
  const int budget = std::max(1, options().line_search_max_evaluations);
  int evaluations = 0;

  // Evaluates x + t d; a non-finite loss or slope counts as an infinitely bad point.
  auto try_step = [&](double step) {
    Trial trial{step, 0, 0, x_ + step * direction, VectorXd(x_.size())};
    project_onto_box(span_of(trial.x), lower(), upper());
    trial.loss = evaluate_with_gradient(span_of(trial.x), span_of(trial.gradient));
    trial.slope = trial.gradient.dot(direction);
    if (!std::isfinite(trial.loss) || !std::isfinite(trial.slope)) trial.loss = kInfinity;
    ++evaluations;
    return trial;
  };
  auto decreases_enough = [&](const Trial& t) {
    return t.loss <= loss0 + kSufficientDecrease * t.step * slope0;
  };
  auto flat_enough = [&](const Trial& t) { return std::fabs(t.slope) <= -kCurvature * slope0; };
  auto accept = [&](Trial& t) {
    x_ = std::move(t.x);
    gradient_ = std::move(t.gradient);
    loss_ = t.loss;
    return true;
  };

  // Bracketing (Nocedal and Wright, algorithm 3.5): grow the step until the interval between the
  // last two trials must contain a strong Wolfe point.
  Trial low{0, loss0, slope0, x_, gradient_};
  Trial high;
  for (double step = std::min(first_step, max_step);; step = std::min(max_step, kExpansion * step)) {
    Trial trial = try_step(step);
    if (!decreases_enough(trial) || (evaluations > 1 && trial.loss >= low.loss)) {
      high = std::move(trial);
      break;
    }
    if (flat_enough(trial)) return accept(trial);
    if (trial.slope >= 0) {
      high = std::move(low);
      low = std::move(trial);
      break;
    }
    if (trial.step >= max_step || evaluations >= budget) return accept(trial);
    low = std::move(trial);
  }

  // Zoom (algorithm 3.6): low always holds the lowest sufficient-decrease point found.
  while (evaluations < budget &&
         std::fabs(high.step - low.step) > kEpsilon * std::max(high.step, low.step)) {
    Trial trial = try_step(interpolated_step(low, high));
    if (!decreases_enough(trial) || trial.loss >= low.loss) {
      high = std::move(trial);
      continue;
    }
    if (flat_enough(trial)) return accept(trial);
    if (trial.slope * (high.step - low.step) >= 0) high = std::move(low);
    low = std::move(trial);
  }
  if (low.step > 0) return accept(low);
  return false;
}

void Lbfgs::remember(const VectorXd& s, const VectorXd& y) {
  // The reference implementation's test: skip pairs whose curvature is lost in rounding.
  if (!(s.dot(y) > kEpsilon * y.squaredNorm())) return;
  const Index pairs = s_history_.cols();
  const Index keep = std::min<Index>(pairs, std::max(1, options().lbfgs_memory) - 1);
  MatrixXd s_next(s.size(), keep + 1), y_next(y.size(), keep + 1);
  s_next << s_history_.rightCols(keep), s;
  y_next << y_history_.rightCols(keep), y;
  s_history_ = std::move(s_next);
  y_history_ = std::move(y_next);
}

void Lbfgs::forget() {
  s_history_.resize(x_.size(), 0);
  y_history_.resize(x_.size(), 0);
}

bool Lbfgs::converged_at_current() {
  const double stationarity = projected_gradient_norm(span_of(x_), span_of(gradient_), lower(), upper());
  if (!std::isfinite(loss_) || !std::isfinite(stationarity)) {
    converge("loss or gradient is not finite at the start");
  } else if (stationarity <= options().gradient_tolerance) {
    converge("projected gradient below tolerance");
  } else {
    return false;
  }
  return true;
}

template <class Self, class Archive>
void Lbfgs::transfer(Self& self, Archive& archive) {
  archive("x", self.x_);
  archive("gradient", self.gradient_);
  archive("loss", self.loss_);
  archive("started", self.started_);
  archive("s_history", self.s_history_);
  archive("y_history", self.y_history_);
}

void Lbfgs::save_state(StateWriter& writer) const { transfer(*this, writer); }

void Lbfgs::load_state(StateReader& reader) { transfer(*this, reader); }

}  // namespace simgrad::tune
