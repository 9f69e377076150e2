// Finite-difference checks for the vehicle: a part's local-tape gradient against central
// differences, and a whole rollout's gradient in relative coordinates.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/local_ad.hpp"

namespace simgrad::vehicle {

// Checks every partial of f (a generic callable taking std::array<S, N>) at x.
template <std::size_t N, class F>
void expect_gradient(const F& f, const std::array<double, N>& x, double rtol = 1e-6, double atol = 1e-9) {
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  std::array<ad::Var, N> v;
  for (std::size_t i = 0; i < N; ++i) v[i] = ad::Var::input(x[i]);
  const ad::Var r = f(v);
  tape.clear_adjoints();
  tape.adjoint(r.i) = 1.0;
  tape.sweep();
  GradCheckOptions tolerance;
  tolerance.rtol = rtol;
  tolerance.atol = atol;
  for (std::size_t i = 0; i < N; ++i) {
    const double ad = tape.adjoint(v[i].i);
    const double h = 1e-6 * std::max(1.0, std::abs(x[i]));
    std::array<double, N> xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    const double fd = (f(xp) - f(xm)) / (2.0 * h);
    EXPECT_TRUE(derivatives_agree(ad, fd, tolerance)) << "input " << i << ": ad " << ad << " fd " << fd;
  }
}

// Checks gradient g of f at x in relative coordinates x_i (1 + u_i) (absolute where x_i = 0), so
// that constants of any size (an inertia of 3e-5 kg m^2, a brake force of 9000 N) get a fitting
// difference step.
inline void expect_relative_gradient(const std::function<double(std::span<const double>)>& f,
                                     std::span<const double> x, std::span<const double> g, double rtol,
                                     std::span<const std::string> labels = {}) {
  std::vector<double> scale(x.size()), u(x.size(), 0.0), gu(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    scale[i] = x[i] != 0.0 ? std::abs(x[i]) : 1.0;
    gu[i] = g[i] * scale[i];
  }
  GradCheckOptions options;
  options.rtol = rtol;
  options.atol = 1e-10;
  options.step = 1e-6;
  const GradCheckReport report = check_gradient(
      [&](std::span<const double> v) {
        std::vector<double> y(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] + scale[i] * v[i];
        return f(y);
      },
      u, gu, options, labels);
  for (const GradCheckEntry& e : report.checks) EXPECT_TRUE(e.ok) << e.label << ": ad " << e.ad << " fd " << e.fd;
}

}  // namespace simgrad::vehicle
