// A finite-difference check for the vehicle's parts: the local tape's gradient of a function of
// N scalars against central differences of the same function on doubles.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

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

}  // namespace simgrad::vehicle
