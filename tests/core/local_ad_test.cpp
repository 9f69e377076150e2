#include "core/local_ad.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

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

// An external block for y = x0 * x1 (ints: first output, x0, x1; reals: x0, x1 values).
void product_adjoint(double* g, const std::int32_t* ints, double* reals) {
  const double gy = g[ints[0]];
  g[ints[1]] += reals[1] * gy;
  g[ints[2]] += reals[0] * gy;
}

// The product of a and b as an external block: its value is a leaf, its adjoint product_adjoint.
ad::Var external_product(const ad::Var& a, const ad::Var& b) {
  ad::LocalTape& tape = *ad::active_tape;
  const ad::ExternalData data = tape.external(tape.size(), product_adjoint, 3, 2);
  data.ints[0] = tape.size();
  data.ints[1] = a.i;
  data.ints[2] = b.i;
  data.reals[0] = a.v;
  data.reals[1] = b.v;
  return ad::Var::input(a.v * b.v);
}

TEST(LocalAd, ExternalBlocksChainWithRecordedOperations) {
  // f = sin(x y) * (x + y)^2 * y, with both products as external blocks, one feeding the other,
  // against the same function recorded throughout: the same value and the same adjoints.
  auto recorded = [](auto x, auto y) {
    using std::sin;
    return sin(x * y) * ((x + y) * (x + y)) * y;
  };
  auto mixed = [](ad::Var x, ad::Var y) {
    const ad::Var inner = external_product(x, y);
    const ad::Var square = external_product(x + y, x + y);
    return external_product(sin(inner) * square, y);
  };
  const auto [gx, gy] = tape_gradient(recorded, 0.7, -1.3);
  const auto [hx, hy] = tape_gradient(mixed, 0.7, -1.3);
  EXPECT_NEAR(hx, gx, 1e-12 * std::abs(gx));
  EXPECT_NEAR(hy, gy, 1e-12 * std::abs(gy));
  expect_partials(recorded, 0.7, -1.3);
  // A reset forgets the blocks: a tape recorded afterwards without them sweeps as usual.
  const auto [rx, ry] = tape_gradient([](auto x, auto y) { return x * y; }, 0.7, -1.3);
  EXPECT_EQ(rx, -1.3);
  EXPECT_EQ(ry, 0.7);
}

}  // namespace
}  // namespace simgrad
