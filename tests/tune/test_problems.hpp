#pragma once

// Standard test losses with exact gradients, shared by the optimizer tests.

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "tune/objective.hpp"

namespace simgrad::tune::testing {

// Chained Rosenbrock, sum of 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2; minimum 0 at all ones.
class Rosenbrock final : public Objective {
 public:
  explicit Rosenbrock(std::size_t dimension) : dimension_(dimension) {}

  std::size_t dimension() const override { return dimension_; }

  double value(std::span<const double> x) override {
    double loss = 0;
    for (std::size_t i = 0; i + 1 < x.size(); ++i) {
      loss += 100 * std::pow(x[i + 1] - x[i] * x[i], 2) + std::pow(1 - x[i], 2);
    }
    return loss;
  }

  double value_and_gradient(std::span<const double> x, std::span<double> gradient) override {
    for (double& g : gradient) g = 0;
    for (std::size_t i = 0; i + 1 < x.size(); ++i) {
      const double valley = x[i + 1] - x[i] * x[i];
      gradient[i] += -400 * x[i] * valley - 2 * (1 - x[i]);
      gradient[i + 1] += 200 * valley;
    }
    return value(x);
  }

  // The loss as a sum of squares: 10 (x[i+1] - x[i]^2) and 1 - x[i] for each i.
  bool residuals(std::span<const double> x, std::vector<double>& out) override {
    out.clear();
    for (std::size_t i = 0; i + 1 < x.size(); ++i) {
      out.push_back(10 * (x[i + 1] - x[i] * x[i]));
      out.push_back(1 - x[i]);
    }
    return true;
  }

 private:
  std::size_t dimension_;
};

// The standard start (-1.2, 1, -1.2, 1, ...) of More, Garbow and Hillstrom.
inline std::vector<double> rosenbrock_start(std::size_t dimension) {
  std::vector<double> x(dimension);
  for (std::size_t i = 0; i < dimension; ++i) x[i] = i % 2 == 0 ? -1.2 : 1.0;
  return x;
}

// Separable quadratic sum scale[i] (x[i] - center[i])^2 / 2; minimum 0 at center.
class Quadratic final : public Objective {
 public:
  Quadratic(std::vector<double> center, std::vector<double> scale)
      : center_(std::move(center)), scale_(std::move(scale)) {}

  // Condition number `condition`, scales spread geometrically, centre at `center` everywhere.
  static Quadratic ellipsoid(std::size_t dimension, double condition, double center) {
    std::vector<double> scale(dimension);
    for (std::size_t i = 0; i < dimension; ++i) {
      scale[i] = dimension == 1 ? 1.0 : std::pow(condition, double(i) / double(dimension - 1));
    }
    return Quadratic(std::vector<double>(dimension, center), scale);
  }

  std::size_t dimension() const override { return center_.size(); }

  double value(std::span<const double> x) override {
    double loss = 0;
    for (std::size_t i = 0; i < x.size(); ++i) loss += 0.5 * scale_[i] * std::pow(x[i] - center_[i], 2);
    return loss;
  }

  double value_and_gradient(std::span<const double> x, std::span<double> gradient) override {
    for (std::size_t i = 0; i < x.size(); ++i) gradient[i] = scale_[i] * (x[i] - center_[i]);
    return value(x);
  }

 private:
  std::vector<double> center_;
  std::vector<double> scale_;
};

// Forwards to another objective and records whether any evaluation left the box.
class BoxWatch final : public Objective {
 public:
  BoxWatch(Objective& inner, std::vector<double> lower, std::vector<double> upper)
      : inner_(inner), lower_(std::move(lower)), upper_(std::move(upper)) {}

  std::size_t dimension() const override { return inner_.dimension(); }

  double value(std::span<const double> x) override {
    check(x);
    return inner_.value(x);
  }

  double value_and_gradient(std::span<const double> x, std::span<double> gradient) override {
    check(x);
    return inner_.value_and_gradient(x, gradient);
  }

  bool left_box = false;

 private:
  // Notes any component outside its bounds.
  void check(std::span<const double> x) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!(x[i] >= lower_[i] && x[i] <= upper_[i])) left_box = true;
    }
  }

  Objective& inner_;
  std::vector<double> lower_;
  std::vector<double> upper_;
};

}  // namespace simgrad::tune::testing
