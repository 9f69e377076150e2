// Finite-difference checks of one stage F of a smoke step through f(x) = w . F(x) for fixed
// random weights w, whose gradient is the stage's adjoint applied to w; shared by the 2D and 3D
// kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rng.hpp"
#include "tune/problem.hpp"

namespace simgrad::fluid {

inline std::vector<double> random_values(std::size_t n, std::uint64_t seed, double scale) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * standard_normal(seed, 0, i);
  return v;
}

inline double dot(std::span<const double> a, std::span<const double> b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Expects two gradients of one loss, reached by different routes, to agree: their largest
// difference below `tolerance` times the largest entry of the first.
inline void expect_gradients_agree(std::span<const double> a, std::span<const double> b, double tolerance) {
  double scale = 0.0, worst = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    scale = std::max(scale, std::abs(a[k]));
    worst = std::max(worst, std::abs(a[k] - b[k]));
  }
  EXPECT_LT(worst, tolerance * scale);
}

// Checks the gradient of x -> w . forward(x) against adjoint(w) (which returns dx).
inline void check_stage(std::size_t inputs, std::size_t outputs,
                 const std::function<void(std::span<const double>, std::span<double>)>& forward,
                 const std::function<std::vector<double>(std::span<const double>, std::span<const double>)>& adjoint,
                 std::uint64_t seed, double scale = 0.3) {
  const std::vector<double> x = random_values(inputs, seed, scale);
  const std::vector<double> w = random_values(outputs, seed + 1, 1.0);
  auto f = [&](std::span<const double> y) {
    std::vector<double> out(outputs);
    forward(y, out);
    return dot(w, out);
  };
  const std::vector<double> g = adjoint(x, w);
  GradCheckOptions o;
  o.random_directions = 6;
  o.step = 1e-6;
  o.rtol = 1e-5;
  o.atol = 1e-8;
  o.seed = seed;
  const GradCheckReport r = check_gradient(f, x, g, o);
  for (const GradCheckEntry& e : r.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
}

// Checks a problem's gradient at its initial point against central differences: the first
// `coordinates` entries one by one (the others held), then all of them in `directions` random
// directions (none: skipped).
inline void check_problem_gradient(tune::Problem& problem, std::size_t coordinates, int directions) {
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  GradCheckOptions o;
  o.step = 1e-6;
  o.rtol = 1e-5;
  o.atol = 1e-9;
  auto f = [&](std::span<const double> y) { return problem.value(y); };
  auto f_coordinates = [&](std::span<const double> y) {
    std::vector<double> full = x;
    std::copy(y.begin(), y.end(), full.begin());
    return f(full);
  };
  const std::vector<double> xs(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(coordinates));
  const GradCheckReport one_by_one = check_gradient(f_coordinates, xs, std::span<const double>(g.data(), coordinates), o);
  for (const GradCheckEntry& e : one_by_one.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
  if (directions == 0) return;
  o.random_directions = directions;
  const GradCheckReport all = check_gradient(f, x, g, o);
  for (const GradCheckEntry& e : all.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
}

}  // namespace simgrad::fluid
