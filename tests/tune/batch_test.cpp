// Batches: the split over processes, and optimizers whose batches are spread giving the plain
// run's bits (each block evaluated on its own, tests/tune/simulated_ranks.hpp).
#include "tune/batch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/diagnostics.hpp"
#include "simulated_ranks.hpp"
#include "test_problems.hpp"
#include "tune/cmaes.hpp"
#include "tune/levenberg_marquardt.hpp"
#include "tune/problem.hpp"

namespace simgrad::tune {
namespace {

using testing::SimulatedRanks;
using testing::UseExecutor;

TEST(BlockOf, BlocksTileTheItemsInProcessOrderAndDifferByAtMostOne) {
  for (std::size_t count = 0; count <= 40; ++count) {
    for (int processes = 1; processes <= 7; ++processes) {
      std::size_t next = 0, smallest = count, largest = 0;
      for (int p = 0; p < processes; ++p) {
        const BatchBlock block = block_of(count, processes, p);
        EXPECT_EQ(block.begin, next) << count << " items, process " << p << " of " << processes;
        next = block.end;
        smallest = std::min(smallest, block.size());
        largest = std::max(largest, block.size());
      }
      EXPECT_EQ(next, count);
      EXPECT_LE(largest - smallest, 1u);
    }
  }
  // More processes than items: the first take one each, the rest none.
  EXPECT_EQ(block_of(2, 4, 1).size(), 1u);
  EXPECT_EQ(block_of(2, 4, 3).size(), 0u);
}

// A run of Method on the chained Rosenbrock function of this dimension from its standard start.
template <class Method>
OptimizeResult on_rosenbrock(std::size_t dimension, int iterations) {
  testing::Rosenbrock rosenbrock(dimension);
  OptimizerOptions options;
  options.seed = 7;
  options.max_iterations = iterations;
  Method method(options);
  return minimize(method, rosenbrock, testing::rosenbrock_start(dimension));
}

OptimizeResult cmaes_on_rosenbrock() { return on_rosenbrock<CmaEs>(4, 40); }

TEST(Batch, CmaEsGivesTheSameBitsWhateverTheNumberOfProcesses) {
  const OptimizeResult alone = cmaes_on_rosenbrock();
  ASSERT_EQ(alone.iterations, 40);
  for (int ranks = 1; ranks <= 5; ++ranks) {
    SimulatedRanks executor(ranks);
    UseExecutor use(executor);
    const OptimizeResult spread = cmaes_on_rosenbrock();
    EXPECT_EQ(executor.batches(), 40) << "one batch per generation";
    EXPECT_EQ(spread.x, alone.x) << ranks << " processes";
    EXPECT_EQ(spread.loss, alone.loss);
    EXPECT_EQ(spread.rollouts, alone.rollouts);
    ASSERT_EQ(spread.history.size(), alone.history.size());
    for (std::size_t i = 0; i < alone.history.size(); ++i) {
      EXPECT_EQ(spread.history[i].loss, alone.history[i].loss);
      EXPECT_EQ(spread.history[i].best_loss, alone.history[i].best_loss);
    }
  }
}

OptimizeResult levenberg_marquardt_on_rosenbrock() { return on_rosenbrock<LevenbergMarquardt>(6, 8); }

TEST(Batch, LevenbergMarquardtsJacobianGivesTheSameBitsWhateverTheNumberOfProcesses) {
  const OptimizeResult alone = levenberg_marquardt_on_rosenbrock();
  ASSERT_EQ(alone.iterations, 8);
  for (int ranks : {2, 4, 7}) {
    SimulatedRanks executor(ranks);
    UseExecutor use(executor);
    const OptimizeResult spread = levenberg_marquardt_on_rosenbrock();
    EXPECT_EQ(executor.batches(), 8) << "one Jacobian per iteration";
    EXPECT_EQ(spread.x, alone.x) << ranks << " processes";
    EXPECT_EQ(spread.loss, alone.loss);
    EXPECT_EQ(spread.rollouts, alone.rollouts);
  }
}

TEST(Batch, NonFiniteRolloutsOnEveryProcessAreCounted) {
  // Points with x > 0 blow up; ten points, five of them blowing up, spread over three processes.
  FunctionObjective blows_up(1, {}, [](std::span<const double> x, std::span<double> g) {
    if (x[0] > 0) throw NonFiniteError("test_kernel", 3, false, 5);
    g[0] = 2 * x[0];
    return x[0] * x[0];
  });
  NonFiniteAsInfinite guarded(blows_up);
  SimulatedRanks executor(3);
  UseExecutor use(executor);
  const std::vector<double> points = {-5, 1, -4, 2, -3, 3, -2, 4, -1, 5};
  std::vector<double> losses(points.size());
  guarded.values(points, losses);
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(losses[i], points[i] > 0 ? INFINITY : points[i] * points[i]) << "point " << i;
  }
  EXPECT_EQ(guarded.failures(), 5);
}

}  // namespace
}  // namespace simgrad::tune
