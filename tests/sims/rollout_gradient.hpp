// The simulators' tests' gradient checks: a gradient against central differences along random
// directions, and the adjoint the last loss_and_gradient left in one tunable array against
// central differences of the rollout's loss.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rollout.hpp"

namespace simgrad::testing {

// Checks `gradient` (of f at x) along `directions` random directions (0: every coordinate);
// fails the test where they disagree and returns the largest |finite difference| seen, so that
// a caller can tell the quantity moves the loss at all.
inline double expect_gradient(const std::function<double(std::span<const double>)>& f, std::span<const double> x,
                              std::span<const double> gradient, const std::string& label, int directions = 3,
                              double rtol = 1e-5, double atol = 1e-9, double step = 1e-6) {
  GradCheckOptions options;
  options.random_directions = directions;
  options.step = step;
  options.rtol = rtol;
  options.atol = atol;
  double largest = 0.0;
  for (const GradCheckEntry& e : check_gradient(f, x, gradient, options).checks) {
    EXPECT_TRUE(e.ok) << label << " " << e.label << ": ad " << e.ad << " fd " << e.fd;
    largest = std::max(largest, std::abs(e.fd));
  }
  return largest;
}

// The same for `array`'s adjoints after rollout.loss_and_gradient().
template <int K>
double expect_array_gradient(Rollout& rollout, Array<K>& array, const std::string& label, int directions = 3,
                             double rtol = 1e-5, double atol = 1e-9, double step = 1e-6) {
  const std::vector<double> x0(array.values().begin(), array.values().end());
  const std::vector<double> gradient(array.adjoints().begin(), array.adjoints().end());
  auto f = [&](std::span<const double> x) {
    std::copy(x.begin(), x.end(), array.values().begin());
    const double l = rollout.loss();
    std::copy(x0.begin(), x0.end(), array.values().begin());
    return l;
  };
  return expect_gradient(f, x0, gradient, label, directions, rtol, atol, step);
}

}  // namespace simgrad::testing
