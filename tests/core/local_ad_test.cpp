#include "core/local_ad.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/gradcheck.hpp"

namespace simgrad {
namespace {

// d f / d x and d f / d y of a two-argument function, by one tape sweep.
template <class F>
std::pair<double, double> tape_gradient(const F& f, double x, double y) {
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  const ad::Var vx = ad::Var::input(x);
  const ad::Var vy = ad::Var::input(y);
  const ad::Var r = f(vx, vy);
  tape.clear_adjoints();
  tape.adjoint(r.i) = 1.0;
  tape.sweep();
  return {tape.adjoint(vx.i), tape.adjoint(vy.i)};
}

// Compares the tape's partials of f with central differences of f on doubles.
template <class F>
void expect_partials(const F& f, double x, double y) {
  const auto [gx, gy] = tape_gradient(f, x, y);
  const double h = 1e-6;
  const double fx = (f(x + h, y) - f(x - h, y)) / (2 * h);
  const double fy = (f(x, y + h) - f(x, y - h)) / (2 * h);
  GradCheckOptions tolerance;
  tolerance.rtol = 1e-6;
  tolerance.atol = 1e-8;
  EXPECT_TRUE(derivatives_agree(gx, fx, tolerance)) << "d/dx " << gx << " vs " << fx;
  EXPECT_TRUE(derivatives_agree(gy, fy, tolerance)) << "d/dy " << gy << " vs " << fy;
}

TEST(LocalAd, ArithmeticPartials) {
  expect_partials([](auto a, auto b) { return a + b; }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return a - b; }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return a * b; }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return a / b; }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return 2.0 * a - b / 3.0 + 1.5 / b - (4.0 - a); }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return -a * b * a; }, 0.7, -1.3);
}

TEST(LocalAd, ElementaryFunctionPartials) {
  using std::abs, std::atan2, std::cos, std::exp, std::expm1, std::log, std::log1p, std::pow, std::sin, std::sqrt,
      std::tanh;
  expect_partials([](auto a, auto b) { return sqrt(a * a + b * b); }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return exp(a) * log(b * b); }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return log1p(a) + expm1(b); }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return sin(a) * cos(b) + tanh(a * b); }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return abs(b) * pow(a, 2.5); }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return pow(a, -b); }, 0.7, -1.3);
  expect_partials([](auto a, auto b) { return atan2(b, a); }, 0.7, -1.3);
}

TEST(LocalAd, ConstantsDoNotReceiveAdjoints) {
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  const ad::Var x = ad::Var::input(2.0);
  const ad::Var c(5.0);
  const ad::Var r = x * c + c * c;
  EXPECT_EQ(r.v, 35.0);
  tape.clear_adjoints();
  tape.adjoint(r.i) = 1.0;
  tape.sweep();
  EXPECT_EQ(tape.adjoint(x.i), 5.0);
}

TEST(LocalAd, TapeGrowsBeyondInitialCapacity) {
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  const ad::Var x = ad::Var::input(1.0);
  ad::Var r = x;
  for (int i = 0; i < 5000; ++i) r = r * 1.0001;
  tape.clear_adjoints();
  tape.adjoint(r.i) = 1.0;
  tape.sweep();
  EXPECT_NEAR(tape.adjoint(x.i), std::pow(1.0001, 5000), 1e-9);
}

}  // namespace
}  // namespace simgrad
