// The rigid tests' gradient check of one tunable array: the adjoint the last loss_and_gradient
// left in it against central differences of the rollout's loss.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rollout.hpp"

namespace simgrad::rigid::testing {

// Checks `array`'s adjoints along `directions` random directions (0: every coordinate); returns
// the largest finite difference seen, so that a caller can tell the array moves the loss at all.
inline double expect_array_gradient(Rollout& rollout, Array<1>& array, const std::string& label, int directions = 3) {
  const std::vector<double> x0(array.values().begin(), array.values().end());
  const std::vector<double> gradient(array.adjoints().begin(), array.adjoints().end());
  auto f = [&](std::span<const double> x) {
    std::copy(x.begin(), x.end(), array.values().begin());
    const double l = rollout.loss();
    std::copy(x0.begin(), x0.end(), array.values().begin());
    return l;
  };
  GradCheckOptions options;
  options.random_directions = directions;
  options.step = 1e-6;
  options.rtol = 1e-5;
  options.atol = 1e-9;
  double largest = 0.0;
  for (const GradCheckEntry& e : check_gradient(f, x0, gradient, options).checks) {
    EXPECT_TRUE(e.ok) << label << " " << e.label << ": ad " << e.ad << " fd " << e.fd;
    largest = std::max(largest, std::abs(e.fd));
  }
  return largest;
}

}  // namespace simgrad::rigid::testing
