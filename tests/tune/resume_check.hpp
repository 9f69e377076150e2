#pragma once

// The save/resume contract every optimizer keeps: run N iterations, save, load into a fresh
// optimizer, continue, and land exactly where an uninterrupted run lands.

#include <gtest/gtest.h>

#include <span>
#include <sstream>
#include <vector>

#include "tune/optimizer.hpp"

namespace simgrad::tune::testing {

// Compares an interrupted-and-resumed run of Method with an uninterrupted one, bit for bit.
template <class Method>
void expect_exact_resume(const OptimizerOptions& options, Objective& objective,
                         std::span<const double> x0, std::span<const double> lower,
                         std::span<const double> upper, int split, int total) {
  OptimizerOptions full_options = options;
  full_options.max_iterations = total;
  Method uninterrupted(full_options);
  minimize(uninterrupted, objective, x0, lower, upper);

  OptimizerOptions first_options = options;
  first_options.max_iterations = split;
  Method first(first_options);
  minimize(first, objective, x0, lower, upper);
  std::stringstream saved;
  first.save(saved);

  Method resumed(full_options);
  resumed.init(objective, x0, lower, upper);
  resumed.load(saved);
  run(resumed);

  ASSERT_EQ(resumed.iterations(), uninterrupted.iterations());
  EXPECT_EQ(resumed.rollouts(), uninterrupted.rollouts());
  EXPECT_EQ(resumed.gradient_evaluations(), uninterrupted.gradient_evaluations());
  EXPECT_EQ(resumed.best_loss(), uninterrupted.best_loss());
  const auto same = [](std::span<const double> a, std::span<const double> b) {
    return std::vector<double>(a.begin(), a.end()) == std::vector<double>(b.begin(), b.end());
  };
  EXPECT_TRUE(same(resumed.best_x(), uninterrupted.best_x()));
  EXPECT_TRUE(same(resumed.current_x(), uninterrupted.current_x()));
  EXPECT_EQ(resumed.stop_reason(), uninterrupted.stop_reason());
  ASSERT_EQ(resumed.history().size(), uninterrupted.history().size());
  for (std::size_t i = 0; i < resumed.history().size(); ++i) {
    EXPECT_EQ(resumed.history()[i].loss, uninterrupted.history()[i].loss) << "iteration " << i;
    EXPECT_EQ(resumed.history()[i].rollouts, uninterrupted.history()[i].rollouts);
  }
}

}  // namespace simgrad::tune::testing
