#include "tune/problem.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "core/diagnostics.hpp"
#include "tune/batch.hpp"

namespace simgrad::tune {

namespace {

std::vector<Parameter> metadata(const std::vector<BoundParameter>& bound) {
  std::vector<Parameter> p;
  for (const BoundParameter& b : bound) p.push_back(b.parameter);
  return p;
}

}  // namespace

GradCheckReport check_problem_gradient(Problem& problem, std::span<const double> x, GradCheckOptions options) {
  std::vector<double> gradient(x.size());
  problem.value_and_gradient(x, gradient);
  if (options.random_directions <= 0) options.random_directions = x.size() > 64 ? 16 : 0;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < x.size(); ++i) labels.push_back(problem.space().component_name(i));
  return check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, gradient, options, labels);
}

RolloutProblem::RolloutProblem(System& system, TrajectoryLoss& loss, int steps, RolloutOptions options,
                               std::vector<BoundParameter> parameters)
    : system_(system),
      loss_(loss),
      steps_(steps),
      options_(options),
      parameters_(std::move(parameters)),
      space_(metadata(parameters_)),
      dimension_(space_.size()),
      rollout_(system, loss, steps, std::move(options)) {}

double RolloutProblem::observed_value(std::span<const double> x, const StateObserver& observer) {
  assign(x);
  RolloutOptions o = options_;
  o.observer = [&](int t, std::span<const double> state) {
    if (options_.observer) options_.observer(t, state);
    observer(t, state);
  };
  return Rollout(system_, loss_, steps_, std::move(o)).loss();
}

RolloutProblem::KeptStates RolloutProblem::kept_states(std::span<const double> x, int every) {
  if (every < 1) throw std::invalid_argument("every must be 1 or more");
  KeptStates kept;
  kept.loss = observed_value(x, [&](int t, std::span<const double> state) {
    if (t % every != 0 && t != steps_) return;
    kept.steps.push_back(t);
    kept.states.insert(kept.states.end(), state.begin(), state.end());
  });
  return kept;
}

bool RolloutProblem::residuals(std::span<const double> x, std::vector<double>& out) {
  out.clear();
  if (!term_residuals_) return false;
  observed_value(x, [&](int t, std::span<const double> state) {
    if (loss_.has_term(t, steps_)) term_residuals_(t, state, out);
  });
  return true;
}

std::vector<double> RolloutProblem::initial() const {
  std::vector<double> x;
  for (const BoundParameter& b : parameters_) x.insert(x.end(), b.parameter.initial.begin(), b.parameter.initial.end());
  return x;
}

void RolloutProblem::assign(std::span<const double> x) {
  if (x.size() != dimension_) throw std::invalid_argument("problem: parameter vector has the wrong size");
  std::size_t offset = 0;
  for (const BoundParameter& b : parameters_) {
    const std::size_t n = b.parameter.initial.size();
    b.assign(x.subspan(offset, n));
    offset += n;
  }
}

double RolloutProblem::value(std::span<const double> x) {
  assign(x);
  return rollout_.loss();
}

double RolloutProblem::twin_value(System& system, TrajectoryLoss& loss) {
  return Rollout(system, loss, steps_, options_).loss();
}

double RolloutProblem::value_and_gradient(std::span<const double> x, std::span<double> gradient) {
  assign(x);
  const double loss = rollout_.loss_and_gradient();
  std::size_t offset = 0;
  for (const BoundParameter& b : parameters_) {
    const std::size_t n = b.parameter.initial.size();
    b.gradient(gradient.subspan(offset, n));
    offset += n;
  }
  return loss;
}

double NonFiniteAsInfinite::value(std::span<const double> x) {
  try {
    return inner_->value(x);
  } catch (const NonFiniteError& e) {
    ++failures_;
    last_failure_ = e.what();
    return std::numeric_limits<double>::infinity();
  }
}

void NonFiniteAsInfinite::values(std::span<const double> points, std::span<double> losses) {
  // A row is the loss and whether its rollout went non-finite, so that every process counts
  // every failure.
  const std::size_t n = dimension();
  std::vector<double> rows(2 * losses.size());
  batch_executor().run(losses.size(), 2, rows, [&](std::size_t i, std::span<double> row) {
    try {
      row[0] = inner_->value(points.subspan(i * n, n));
      row[1] = 0.0;
    } catch (const NonFiniteError& e) {
      last_failure_ = e.what();
      row[0] = std::numeric_limits<double>::infinity();
      row[1] = 1.0;
    }
  });
  for (std::size_t i = 0; i < losses.size(); ++i) {
    losses[i] = rows[2 * i];
    failures_ += rows[2 * i + 1] != 0.0 ? 1 : 0;
  }
}

bool NonFiniteAsInfinite::residuals(std::span<const double> x, std::vector<double>& out) {
  try {
    return inner_->residuals(x, out);
  } catch (const NonFiniteError& e) {
    ++failures_;
    last_failure_ = e.what();
    out.assign(1, std::numeric_limits<double>::infinity());
    return true;
  }
}

bool NonFiniteAsInfinite::residuals_batch(std::span<const double> points, std::size_t width, std::span<double> rows) {
  // A row is whether the loss is a sum of squares, whether the rollout went non-finite, then
  // the residuals.
  const std::size_t n = dimension(), count = rows.size() / width;
  std::vector<double> results(count * (2 + width));
  std::vector<double> residual;
  batch_executor().run(count, 2 + width, results, [&](std::size_t i, std::span<double> row) {
    try {
      row[0] = inner_->residuals(points.subspan(i * n, n), residual) ? 1.0 : 0.0;
      row[1] = 0.0;
    } catch (const NonFiniteError& e) {
      last_failure_ = e.what();
      residual.assign(1, std::numeric_limits<double>::infinity());
      row[0] = 1.0;
      row[1] = 1.0;
    }
    copy_residuals(residual, row.subspan(2));
  });
  for (std::size_t i = 0; i < count; ++i) {
    const double* result = &results[i * (2 + width)];
    if (result[0] == 0.0) return false;
    failures_ += result[1] != 0.0 ? 1 : 0;
    std::copy_n(result + 2, width, rows.begin() + std::ptrdiff_t(i * width));
  }
  return true;
}

double NonFiniteAsInfinite::value_and_gradient(std::span<const double> x, std::span<double> gradient) {
  try {
    return inner_->value_and_gradient(x, gradient);
  } catch (const NonFiniteError& e) {
    ++failures_;
    last_failure_ = e.what();
    std::fill(gradient.begin(), gradient.end(), 0.0);
    return std::numeric_limits<double>::infinity();
  }
}

}  // namespace simgrad::tune
