#include "tune/problem.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/gradcheck.hpp"

namespace simgrad::tune {
namespace {

// Exponential decay x' = x (1 - dt k), with the rate k and x0 as parameters.
class Decay : public System {
 public:
  double k = 0.8, x0 = 1.5, dt = 0.05;
  double g_k = 0, g_x0 = 0;
  Index state_size() const override { return 1; }
  void initial_state(std::span<double> s) override { s[0] = x0; }
  void initial_state_adjoint(std::span<const double> a) override { g_x0 += a[0]; }
  void step(int, std::span<const double> s, std::span<double> n, std::span<double>) override {
    n[0] = s[0] * (1 - dt * k);
  }
  void step_adjoint(int, std::span<const double> s, std::span<const double>, std::span<const double> an,
                    std::span<double> a) override {
    a[0] += an[0] * (1 - dt * k);
    g_k -= an[0] * s[0] * dt;
  }
  void clear_adjoints() override { g_k = g_x0 = 0; }
};

// (x_T - 0.5)^2.
class FinalTarget : public TrajectoryLoss {
 public:
  bool has_term(int t, int steps) const override { return t == steps; }
  double term(int, std::span<const double> s) override { return (s[0] - 0.5) * (s[0] - 0.5); }
  void term_adjoint(int, std::span<const double> s, double seed, std::span<double> a) override {
    a[0] += seed * 2 * (s[0] - 0.5);
  }
};

std::vector<BoundParameter> bind(Decay& d) {
  BoundParameter k{{"rate", "1/s", 0.01, 10.0, Transform::log, {d.k}},
                   [&d](std::span<const double> x) { d.k = x[0]; },
                   [&d](std::span<double> g) { g[0] = d.g_k; }};
  BoundParameter x0{{"x0", "1", -5.0, 5.0, Transform::identity, {d.x0}},
                    [&d](std::span<const double> x) { d.x0 = x[0]; },
                    [&d](std::span<double> g) { g[0] = d.g_x0; }};
  return {k, x0};
}

TEST(RolloutProblem, GradientInPhysicalAndOptimizerCoordinatesMatchesFiniteDifferences) {
  Decay decay;
  FinalTarget loss;
  RolloutProblem problem(decay, loss, 40, {}, bind(decay));
  ASSERT_EQ(problem.dimension(), 2u);
  const std::vector<double> x = problem.initial();
  EXPECT_EQ(x, (std::vector<double>{0.8, 1.5}));
  std::vector<double> g(2);
  const double l = problem.value_and_gradient(x, g);
  EXPECT_NEAR(l, std::pow(1.5 * std::pow(1 - 0.05 * 0.8, 40) - 0.5, 2), 1e-14);
  EXPECT_TRUE(check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g).ok);

  TransformedObjective z_objective = problem.space().objective(problem);
  const std::vector<double> z = problem.space().to_optimizer(x);
  std::vector<double> gz(2);
  z_objective.value_and_gradient(z, gz);
  EXPECT_NEAR(gz[0], g[0] * x[0], 1e-14);  // d/d(log k) = k d/dk
  EXPECT_TRUE(check_gradient([&](std::span<const double> p) { return z_objective.value(p); }, z, gz).ok);
}

TEST(RolloutProblem, RejectsAParameterVectorOfTheWrongSize) {
  Decay decay;
  FinalTarget loss;
  RolloutProblem problem(decay, loss, 10, {}, bind(decay));
  std::vector<double> wrong = {1.0};
  EXPECT_THROW(problem.value(wrong), std::invalid_argument);
}

TEST(NonFiniteAsInfinite, ABlownUpRolloutCountsAsAnInfiniteLoss) {
  FunctionObjective blows_up_past_one(
      1, {}, [](std::span<const double> x, std::span<double> g) {
        if (x[0] > 1.0) throw NonFiniteError("spring_forces", 7, false, 42);
        g[0] = 2 * x[0];
        return x[0] * x[0];
      });
  NonFiniteAsInfinite guarded(blows_up_past_one);
  std::vector<double> g(1);
  EXPECT_EQ(guarded.value_and_gradient(std::vector<double>{0.5}, g), 0.25);
  EXPECT_EQ(g[0], 1.0);
  EXPECT_EQ(guarded.value(std::vector<double>{2.0}), std::numeric_limits<double>::infinity());
  EXPECT_EQ(guarded.value_and_gradient(std::vector<double>{3.0}, g), std::numeric_limits<double>::infinity());
  EXPECT_EQ(g[0], 0.0);
  EXPECT_EQ(guarded.failures(), 2);
  EXPECT_NE(guarded.last_failure().find("step 42"), std::string::npos);
}

}  // namespace
}  // namespace simgrad::tune
