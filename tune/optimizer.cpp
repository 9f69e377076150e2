#include "tune/optimizer.hpp"

#include <cmath>
#include <stdexcept>

#include "tune/box.hpp"

namespace simgrad::tune {
namespace {

constexpr int kStateFormat = 1;

// Bounds as given, or infinite ones of the right size when the caller passed none.
std::vector<double> bounds_or(std::span<const double> given, std::size_t size, double fallback,
                              std::string_view which) {
  if (given.empty()) return std::vector<double>(size, fallback);
  if (given.size() != size) {
    throw std::invalid_argument(std::string(which) + " bounds have " +
                                std::to_string(given.size()) + " components; x0 has " +
                                std::to_string(size));
  }
  return {given.begin(), given.end()};
}

}  // namespace

void Optimizer::init(Objective& objective, std::span<const double> x0,
                     std::span<const double> lower, std::span<const double> upper) {
  if (x0.empty()) throw std::invalid_argument("cannot optimize over zero parameters");
  if (objective.dimension() != x0.size()) {
    throw std::invalid_argument("x0 has " + std::to_string(x0.size()) +
                                " components; the objective takes " +
                                std::to_string(objective.dimension()));
  }
  lower_ = bounds_or(lower, x0.size(), -std::numeric_limits<double>::infinity(), "lower");
  upper_ = bounds_or(upper, x0.size(), std::numeric_limits<double>::infinity(), "upper");
  for (std::size_t i = 0; i < x0.size(); ++i) {
    if (!(lower_[i] <= upper_[i])) {
      throw std::invalid_argument("bounds of component " + std::to_string(i) +
                                  " are not an interval");
    }
    if (!std::isfinite(x0[i])) {
      throw std::invalid_argument("x0 component " + std::to_string(i) + " is not finite");
    }
  }
  // Copied before anything is reset, since x0 may view this optimizer's own best_x().
  std::vector<double> start(x0.begin(), x0.end());
  project_onto_box(start, lower_, upper_);
  counter_.emplace(objective);
  best_x_ = std::move(start);
  best_loss_ = std::numeric_limits<double>::infinity();
  iterations_ = 0;
  history_.clear();
  method_stop_.clear();
  external_stop_.clear();
  wall_before_ = 0;
  session_start_ = std::chrono::steady_clock::now();
  on_init(best_x_);
}

const IterationRecord& Optimizer::iterate() {
  require_init("iterate()");
  if (const std::string reason = stop_reason(); !reason.empty()) {
    throw std::logic_error("iterate() on a finished run (" + reason + ")");
  }
  const double loss = step();
  ++iterations_;
  history_.push_back({iterations_, rollouts(), loss, best_loss_, wall_seconds()});
  return history_.back();
}

std::string Optimizer::stop_reason() const {
  if (target_reached()) return "target loss reached";
  if (!method_stop_.empty()) return method_stop_;
  if (iterations_ >= options_.max_iterations) return "iteration limit reached";
  if (rollouts() >= options_.max_rollouts) return "rollout budget spent";
  return external_stop_;
}

double Optimizer::wall_seconds() const {
  const std::chrono::duration<double> session = std::chrono::steady_clock::now() - session_start_;
  return wall_before_ + session.count();
}

OptimizeResult Optimizer::result() const {
  OptimizeResult result;
  result.x = best_x_;
  result.loss = best_loss_;
  result.iterations = iterations_;
  result.rollouts = rollouts();
  result.gradient_evaluations = gradient_evaluations();
  result.reached_target = target_reached();
  result.wall_s = wall_seconds();
  result.history = history_;
  result.stop_reason = stop_reason();
  return result;
}

template <class Self, class Archive>
void Optimizer::transfer(Self& self, Archive& archive) {
  std::size_t dimension = self.lower_.size();
  archive("dimension", dimension);
  if constexpr (Archive::loading) {
    if (dimension != self.lower_.size()) {
      throw std::runtime_error("optimizer state is for " + std::to_string(dimension) +
                               " parameters; this run has " + std::to_string(self.lower_.size()));
    }
  }
  archive("lower", self.lower_);
  archive("upper", self.upper_);
  long rollouts = self.rollouts();
  long gradient_evaluations = self.gradient_evaluations();
  archive("rollouts", rollouts);
  archive("gradient_evaluations", gradient_evaluations);
  if constexpr (Archive::loading) self.counter_->restore_counts(rollouts, gradient_evaluations);
  archive("best_x", self.best_x_);
  archive("best_loss", self.best_loss_);
  archive("iterations", self.iterations_);
  archive("method_stop", self.method_stop_);
  double wall_s = self.wall_seconds();
  archive("wall_s", wall_s);
  if constexpr (Archive::loading) {
    self.wall_before_ = wall_s;
    self.session_start_ = std::chrono::steady_clock::now();
  }
  std::size_t records = self.history_.size();
  archive("history", records);
  if constexpr (Archive::loading) self.history_.resize(records);
  for (auto& record : self.history_) {
    archive("iteration", record.iteration);
    archive("rollouts", record.rollouts);
    archive("loss", record.loss);
    archive("best_loss", record.best_loss);
    archive("wall_s", record.wall_s);
  }
}

void Optimizer::save(std::ostream& out) const {
  require_init("save()");
  StateWriter writer(out);
  writer("simgrad_optimizer", std::string(name()));
  writer("format", kStateFormat);
  transfer(*this, writer);
  save_state(writer);
}

void Optimizer::load(std::istream& in) {
  require_init("load()");
  StateReader reader(in);
  std::string method;
  reader("simgrad_optimizer", method);
  if (method != name()) {
    throw std::runtime_error("optimizer state was saved by '" + method + "', not '" +
                             std::string(name()) + "'");
  }
  int format = 0;
  reader("format", format);
  if (format != kStateFormat) {
    throw std::runtime_error("optimizer state format " + std::to_string(format) +
                             " is not supported (expected " + std::to_string(kStateFormat) + ")");
  }
  transfer(*this, reader);
  external_stop_.clear();
  load_state(reader);
}

double Optimizer::evaluate(std::span<const double> x) {
  const double loss = counter_->value(x);
  note(x, loss);
  return loss;
}

void Optimizer::evaluate_batch(std::span<const double> points, std::span<double> losses) {
  counter_->values(points, losses);
  const std::size_t n = dimension();
  for (std::size_t i = 0; i < losses.size(); ++i) note(points.subspan(i * n, n), losses[i]);
}

double Optimizer::evaluate_with_gradient(std::span<const double> x, std::span<double> gradient) {
  const double loss = counter_->value_and_gradient(x, gradient);
  note(x, loss);
  return loss;
}

double Optimizer::evaluate_residuals(std::span<const double> x, std::vector<double>& r) {
  if (!counter_->residuals(x, r))
    throw std::invalid_argument(std::string(name()) + " needs a loss that is a sum of squares (residuals)");
  double loss = 0.0;
  for (double v : r) loss += v * v;
  note(x, loss);
  return loss;
}

void Optimizer::evaluate_residuals_batch(std::span<const double> points, std::size_t width, std::span<double> rows,
                                         std::span<double> losses) {
  if (width == 0 || losses.empty()) throw std::invalid_argument("evaluate_residuals_batch: no residuals or no points");
  if (!counter_->residuals_batch(points, width, rows))
    throw std::invalid_argument(std::string(name()) + " needs a loss that is a sum of squares (residuals)");
  const std::size_t n = dimension();
  for (std::size_t i = 0; i < losses.size(); ++i) {
    double loss = 0.0;
    for (double v : rows.subspan(i * width, width)) loss += v * v;
    losses[i] = loss;
    note(points.subspan(i * n, n), loss);
  }
}

void Optimizer::note(std::span<const double> x, double loss) {
  if (loss < best_loss_) {
    best_loss_ = loss;
    best_x_.assign(x.begin(), x.end());
  }
}

void Optimizer::require_init(std::string_view action) const {
  if (!counter_) throw std::logic_error(std::string(action) + " before init()");
}

OptimizeResult run(Optimizer& optimizer, const IterationCallback& callback) {
  while (!optimizer.finished()) {
    const IterationRecord& record = optimizer.iterate();
    if (callback && !callback(record, optimizer.current_x())) optimizer.stop("stopped by callback");
  }
  return optimizer.result();
}

OptimizeResult minimize(Optimizer& optimizer, Objective& objective, std::span<const double> x0,
                        std::span<const double> lower, std::span<const double> upper,
                        const IterationCallback& callback) {
  optimizer.init(objective, x0, lower, upper);
  return run(optimizer, callback);
}

}  // namespace simgrad::tune
