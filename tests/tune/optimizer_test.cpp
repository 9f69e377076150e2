#include "tune/optimizer.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "test_problems.hpp"
#include "tune/adam.hpp"
#include "tune/lbfgs.hpp"

namespace simgrad::tune {
namespace {

using testing::Quadratic;

// The shared loop machinery is exercised through Adam, whose iterations cost one rollout each.
OptimizerOptions adam_options() {
  OptimizerOptions options;
  options.learning_rate = 0.05;
  options.gradient_tolerance = 0;
  return options;
}

TEST(Optimizer, StopsAtTheIterationLimit) {
  Quadratic quadratic({1.0, 2.0}, {1.0, 1.0});
  OptimizerOptions options = adam_options();
  options.max_iterations = 7;
  Adam adam(options);
  const OptimizeResult result = minimize(adam, quadratic, std::vector<double>{0.0, 0.0});
  EXPECT_EQ(result.iterations, 7);
  EXPECT_EQ(result.rollouts, 7);
  EXPECT_EQ(result.gradient_evaluations, 7);
  EXPECT_EQ(result.stop_reason, "iteration limit reached");
  ASSERT_EQ(result.history.size(), 7u);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(result.history[i].iteration, i + 1);
    EXPECT_EQ(result.history[i].rollouts, i + 1);
    EXPECT_LE(result.history[i].best_loss, result.history[i].loss);
  }
  EXPECT_FALSE(result.reached_target);
}

TEST(Optimizer, StopsWhenTheRolloutBudgetIsSpent) {
  Quadratic quadratic({1.0}, {1.0});
  OptimizerOptions options = adam_options();
  options.max_rollouts = 5;
  Adam adam(options);
  const OptimizeResult result = minimize(adam, quadratic, std::vector<double>{0.0});
  EXPECT_EQ(result.rollouts, 5);
  EXPECT_EQ(result.stop_reason, "rollout budget spent");
}

TEST(Optimizer, StopsAtTheTargetAndReportsIt) {
  Quadratic quadratic({1.0}, {1.0});
  OptimizerOptions options = adam_options();
  options.target_loss = 0.1;
  Adam adam(options);
  const OptimizeResult result = minimize(adam, quadratic, std::vector<double>{0.0});
  EXPECT_TRUE(result.reached_target);
  EXPECT_LE(result.loss, 0.1);
  EXPECT_GT(result.history[result.history.size() - 2].best_loss, 0.1);
  EXPECT_EQ(result.stop_reason, "target loss reached");
}

// The callback sees every record and the current point, and can end the run.
TEST(Optimizer, CallbackCanStopTheRun) {
  Quadratic quadratic({1.0}, {1.0});
  Adam adam(adam_options());
  int calls = 0;
  const OptimizeResult result = minimize(
      adam, quadratic, std::vector<double>{0.0}, {}, {},
      [&](const IterationRecord& record, std::span<const double> x) {
        ++calls;
        EXPECT_EQ(record.iteration, calls);
        EXPECT_EQ(x.size(), 1u);
        return record.iteration < 3;
      });
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(result.iterations, 3);
  EXPECT_EQ(result.stop_reason, "stopped by callback");
}

// A run stopped for its budget continues when resumed with a larger one.
TEST(Optimizer, ResumedRunMayGetALargerBudget) {
  Quadratic quadratic({1.0}, {1.0});
  OptimizerOptions options = adam_options();
  options.max_iterations = 3;
  Adam first(options);
  minimize(first, quadratic, std::vector<double>{0.0});
  std::stringstream saved;
  first.save(saved);
  options.max_iterations = 10;
  Adam resumed(options);
  resumed.init(quadratic, std::vector<double>{0.0});
  resumed.load(saved);
  EXPECT_FALSE(resumed.finished());
  EXPECT_EQ(run(resumed).iterations, 10);
}

// A restart from the optimizer's own best point must not read memory that init() rewrites.
TEST(Optimizer, RestartsFromItsOwnBestPoint) {
  Quadratic quadratic({1.0}, {1.0});
  OptimizerOptions options = adam_options();
  options.max_iterations = 5;
  Adam adam(options);
  minimize(adam, quadratic, std::vector<double>{0.0});
  const double best = adam.best_x()[0];
  adam.init(quadratic, adam.best_x());
  EXPECT_EQ(adam.best_x()[0], best);
  EXPECT_EQ(adam.current_x()[0], best);
  EXPECT_EQ(adam.iterations(), 0);
}

TEST(Optimizer, RejectsMisuse) {
  Quadratic quadratic({1.0, 1.0}, {1.0, 1.0});
  Adam adam(adam_options());
  EXPECT_THROW(adam.iterate(), std::logic_error);
  EXPECT_THROW(adam.init(quadratic, std::vector<double>{0.0}), std::invalid_argument);
  EXPECT_THROW(adam.init(quadratic, std::vector<double>{0.0, 0.0}, std::vector<double>{0.0}),
               std::invalid_argument);
  EXPECT_THROW(adam.init(quadratic, std::vector<double>{0.0, 0.0}, std::vector<double>{1.0, 1.0},
                         std::vector<double>{0.0, 0.0}),
               std::invalid_argument);
  EXPECT_THROW(adam.init(quadratic, std::vector<double>{0.0, std::nan("")}), std::invalid_argument);
  OptimizerOptions one = adam_options();
  one.max_iterations = 1;
  Adam short_run(one);
  minimize(short_run, quadratic, std::vector<double>{0.0, 0.0});
  EXPECT_THROW(short_run.iterate(), std::logic_error);
}

// State saved by one method or for another dimension must not load into a different run.
TEST(Optimizer, RefusesStateFromAnotherMethodOrDimension) {
  Quadratic quadratic({1.0}, {1.0});
  Adam adam(adam_options());
  adam.init(quadratic, std::vector<double>{0.0});
  adam.iterate();
  std::stringstream saved;
  adam.save(saved);
  Lbfgs lbfgs;
  lbfgs.init(quadratic, std::vector<double>{0.0});
  EXPECT_THROW(lbfgs.load(saved), std::runtime_error);

  Quadratic wider({1.0, 1.0}, {1.0, 1.0});
  std::stringstream again(saved.str());
  Adam other(adam_options());
  other.init(wider, std::vector<double>{0.0, 0.0});
  EXPECT_THROW(other.load(again), std::runtime_error);
}

}  // namespace
}  // namespace simgrad::tune
