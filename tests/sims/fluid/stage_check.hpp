// Finite-difference checks of one stage F of a smoke step through f(x) = w . F(x) for fixed
// random weights w, whose gradient is the stage's adjoint applied to w; shared by the 2D and 3D
// kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <span>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rng.hpp"

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

}  // namespace simgrad::fluid
