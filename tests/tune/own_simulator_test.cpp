// The simulator of docs/own_simulator.md, compiled and run: its gradient matches finite
// differences and L-BFGS tunes it, so the guide's code cannot rot.
#include "docs/examples/own_simulator.cpp"

#include <gtest/gtest.h>

#include "core/gradcheck.hpp"
#include "tune/methods.hpp"

namespace {

TEST(OwnSimulator, GradientMatchesFiniteDifferences) {
  own::Particles particles(4, 0.01);
  own::HeightLoss loss(4, 3.0);
  simgrad::tune::RolloutProblem problem(particles, loss, 100, {}, {own::bind_drag(particles)});
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  const auto f = [&](std::span<const double> p) { return problem.value(p); };
  EXPECT_TRUE(simgrad::check_gradient(f, x, g).ok);
}

TEST(OwnSimulator, LbfgsTunesTheDragToTheTargetHeight) {
  own::Particles particles(4, 0.01);
  own::HeightLoss loss(4, 3.0);
  simgrad::tune::RolloutProblem problem(particles, loss, 100, {}, {own::bind_drag(particles)});
  simgrad::tune::OptimizerOptions options;
  options.max_iterations = 50;
  auto lbfgs = simgrad::tune::make_optimizer("lbfgs", options);
  auto objective = problem.space().objective(problem);
  const double before = problem.value(problem.initial());
  const auto result = simgrad::tune::minimize(*lbfgs, objective, problem.space().to_optimizer(problem.initial()),
                                              problem.space().optimizer_lower(), problem.space().optimizer_upper());
  EXPECT_LT(result.loss, before * 1e-6);
}

}  // namespace
