#include "core/relax.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/local_ad.hpp"
#include "core/rng.hpp"

namespace simgrad {
namespace {

// The tape gradient of f: R^n -> R at x, against central differences of f on doubles.
void expect_gradient_matches_fd(const std::function<ad::Var(std::span<const ad::Var>)>& f_var,
                                const std::function<double(std::span<const double>)>& f, std::vector<double> x,
                                double rtol = 1e-6) {
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  std::vector<ad::Var> vx;
  for (double xi : x) vx.push_back(ad::Var::input(xi));
  const ad::Var r = f_var(vx);
  EXPECT_NEAR(r.v, f(x), 1e-12 * (1 + std::abs(r.v)));
  tape.clear_adjoints();
  tape.adjoint(r.i) = 1.0;
  tape.sweep();
  std::vector<double> g;
  for (const ad::Var& v : vx) g.push_back(tape.adjoint(v.i));
  GradCheckOptions options;
  options.rtol = rtol;
  options.atol = 1e-9;
  const auto report = check_gradient(f, x, g, options);
  for (const auto& c : report.checks) EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
}

TEST(Relax, SoftplusGradientAndHardTwin) {
  for (double x : {-3.0, -0.01, 0.0, 0.02, 2.5}) {
    expect_gradient_matches_fd([](auto v) { return relax::softplus(v[0], 20.0); },
                               [](auto v) { return relax::softplus(v[0], 20.0); }, {x});
  }
  // softplus >= max(0, x), within log(2)/beta of it, and converges to it as beta grows.
  for (double x : {-1.0, 0.0, 1.0}) {
    EXPECT_GE(relax::softplus(x, 50.0), relax::hard_softplus(x));
    EXPECT_LE(relax::softplus(x, 50.0) - relax::hard_softplus(x), std::log(2.0) / 50.0 + 1e-15);
  }
  EXPECT_NEAR(relax::softplus(1000.0, 1.0), 1000.0, 1e-12);  // no overflow
  EXPECT_NEAR(relax::softplus(-1000.0, 1.0), 0.0, 1e-300);
}

TEST(Relax, PenaltyForceGradient) {
  expect_gradient_matches_fd([](auto v) { return relax::penalty_force(v[0], 1e3, 100.0); },
                             [](auto v) { return relax::penalty_force(v[0], 1e3, 100.0); }, {-0.003});
  EXPECT_EQ(relax::penalty_force(-0.01, 1e3, 0.0), 10.0);
  EXPECT_EQ(relax::penalty_force(0.01, 1e3, 0.0), 0.0);
}

TEST(Relax, SigmoidThresholdGradientAndHardTwin) {
  expect_gradient_matches_fd([](auto v) { return relax::threshold(v[0], 0.1); },
                             [](auto v) { return relax::threshold(v[0], 0.1); }, {0.05});
  expect_gradient_matches_fd([](auto v) { return relax::sigmoid(v[0]); }, [](auto v) { return relax::sigmoid(v[0]); },
                             {-30.0});
  EXPECT_EQ(relax::threshold(0.3, 0.0), 1.0);
  EXPECT_EQ(relax::threshold(-0.3, 0.0), 0.0);
  EXPECT_NEAR(relax::threshold(0.3, 1e-3), 1.0, 1e-12);
}

TEST(Relax, StraightThroughBernoulliIsHardInValueAndUnbiased) {
  // Value: a hard sample. Gradient: d/dp = 1, the derivative of the expectation E[sample] = p.
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  const ad::Var p = ad::Var::input(0.3);
  const ad::Var s = relax::straight_through_bernoulli(p, 0.2);
  EXPECT_EQ(s.v, 1.0);
  tape.clear_adjoints();
  tape.adjoint(s.i) = 1.0;
  tape.sweep();
  EXPECT_DOUBLE_EQ(tape.adjoint(p.i), 1.0);
  EXPECT_EQ(relax::straight_through_bernoulli(0.3, 0.5), 0.0);
  double mean = 0.0;
  const int n = 200000;
  for (int k = 0; k < n; ++k) mean += relax::straight_through_bernoulli(0.3, uniform01(5, 0, k));
  EXPECT_NEAR(mean / n, 0.3, 4e-3);
}

TEST(Relax, GumbelSoftmaxGradientAndHardTwin) {
  const std::array<double, 3> g = {gumbel(1, 0, 0), gumbel(1, 0, 1), gumbel(1, 0, 2)};
  auto weighted = [&](auto logits, double tau, bool hard) {
    using S = std::decay_t<decltype(logits[0])>;
    std::array<S, 3> out;
    relax::gumbel_softmax<S>(logits, g, tau, hard, out);
    return 1.0 * out[0] + 2.0 * out[1] + 3.0 * out[2];
  };
  expect_gradient_matches_fd([&](auto v) { return weighted(v, 0.5, false); },
                             [&](auto v) { return weighted(v, 0.5, false); }, {0.2, -0.4, 0.1});
  // Straight-through: the value is the hard one-hot of argmax(logits + g).
  std::vector<double> logits = {0.2, -0.4, 0.1};
  std::array<double, 3> hard;
  relax::gumbel_softmax<double>(logits, g, 0.5, true, hard);
  int ones = 0;
  for (double h : hard) {
    EXPECT_TRUE(h == 0.0 || h == 1.0);
    ones += h == 1.0;
  }
  EXPECT_EQ(ones, 1);
  // Sampling frequencies follow softmax(logits) (the Gumbel-max trick).
  std::array<int, 3> counts{};
  const int n = 60000;
  for (int k = 0; k < n; ++k) {
    const std::array<double, 3> gk = {gumbel(9, k, 0), gumbel(9, k, 1), gumbel(9, k, 2)};
    std::array<double, 3> sample;
    relax::gumbel_softmax<double>(logits, gk, 1.0, true, sample);
    for (int i = 0; i < 3; ++i) counts[i] += sample[i] == 1.0;
  }
  const double z = std::exp(0.2) + std::exp(-0.4) + std::exp(0.1);
  EXPECT_NEAR(counts[0] / double(n), std::exp(0.2) / z, 0.01);
  EXPECT_NEAR(counts[1] / double(n), std::exp(-0.4) / z, 0.01);
}

TEST(Relax, SmoothMaximaGradientsAndHardTwins) {
  const std::vector<double> x = {0.3, 1.2, 0.9, -0.5};
  expect_gradient_matches_fd([](auto v) { return relax::logsumexp_max<ad::Var>(v, 0.2); },
                             [](auto v) { return relax::logsumexp_max<double>(v, 0.2); }, x);
  expect_gradient_matches_fd([](auto v) { return relax::pnorm_max<ad::Var>(v, 8.0); },
                             [](auto v) { return relax::pnorm_max<double>(v, 8.0); }, x);
  // Both bound the maximum from above and approach it as the temperature falls / p grows.
  EXPECT_GE(relax::logsumexp_max<double>(x, 0.2), 1.2);
  EXPECT_LE(relax::logsumexp_max<double>(x, 0.2), 1.2 + 0.2 * std::log(4.0));
  EXPECT_EQ(relax::logsumexp_max<double>(x, 0.0), 1.2);
  EXPECT_GE(relax::pnorm_max<double>(x, 8.0), 1.2);
  EXPECT_LE(relax::pnorm_max<double>(x, 8.0), 1.2 * std::pow(4.0, 1.0 / 8.0));
  EXPECT_EQ(relax::pnorm_max<double>(x, INFINITY), 1.2);
}

}  // namespace
}  // namespace simgrad
