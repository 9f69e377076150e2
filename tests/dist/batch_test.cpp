// A batch spread over processes must give what one process gives, bit for bit. These tests run
// the split as MPI processes would, inside one process: each rank's block evaluated on its own
// (the last rank first, so that the order of evaluation cannot matter) into its own copy of the
// rows, the blocks then copied into place. The MPI executor itself is run with 1 to 4 processes
// by tests/dist/ranks_test.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../tune/test_problems.hpp"
#include "core/diagnostics.hpp"
#include "dist/partition.hpp"
#include "tune/batch.hpp"
#include "tune/cmaes.hpp"
#include "tune/problem.hpp"

namespace simgrad::dist {
namespace {

class SimulatedRanks final : public tune::BatchExecutor {
 public:
  explicit SimulatedRanks(int ranks) : ranks_(ranks) {}

  void run(std::size_t count, std::size_t width, std::span<double> rows, const Evaluate& evaluate) override {
    for (int r = ranks_ - 1; r >= 0; --r) {
      std::vector<double> own(rows.size(), -1.0);  // this rank's copy: only its block is filled
      const Block block = block_of(count, ranks_, r);
      for (std::size_t i = block.begin; i < block.end; ++i) evaluate(i, std::span(own).subspan(i * width, width));
      std::copy(own.begin() + std::ptrdiff_t(block.begin * width), own.begin() + std::ptrdiff_t(block.end * width),
                rows.begin() + std::ptrdiff_t(block.begin * width));
    }
    ++batches_;
  }
  int batches() const { return batches_; }

 private:
  int ranks_;
  int batches_ = 0;
};

// Makes `executor` the process's executor for one scope.
struct UseExecutor {
  explicit UseExecutor(tune::BatchExecutor& executor) { tune::set_batch_executor(&executor); }
  ~UseExecutor() { tune::set_batch_executor(nullptr); }
};

tune::OptimizeResult cmaes_on_rosenbrock() {
  tune::testing::Rosenbrock rosenbrock(4);
  tune::OptimizerOptions options;
  options.seed = 7;
  options.max_iterations = 40;
  tune::CmaEs cmaes(options);
  return tune::minimize(cmaes, rosenbrock, tune::testing::rosenbrock_start(4));
}

TEST(Batch, CmaEsGivesTheSameBitsWhateverTheNumberOfRanks) {
  const tune::OptimizeResult alone = cmaes_on_rosenbrock();
  ASSERT_EQ(alone.iterations, 40);
  for (int ranks = 1; ranks <= 5; ++ranks) {
    SimulatedRanks executor(ranks);
    UseExecutor use(executor);
    const tune::OptimizeResult spread = cmaes_on_rosenbrock();
    EXPECT_EQ(executor.batches(), 40) << "one batch per generation";
    EXPECT_EQ(spread.x, alone.x) << ranks << " ranks";
    EXPECT_EQ(spread.loss, alone.loss);
    EXPECT_EQ(spread.rollouts, alone.rollouts);
    ASSERT_EQ(spread.history.size(), alone.history.size());
    for (std::size_t i = 0; i < alone.history.size(); ++i) {
      EXPECT_EQ(spread.history[i].loss, alone.history[i].loss);
      EXPECT_EQ(spread.history[i].best_loss, alone.history[i].best_loss);
    }
  }
}

TEST(Batch, NonFiniteRolloutsOnEveryRankAreCounted) {
  // Points with x > 0 blow up; ten points, five of them blowing up, spread over three ranks.
  tune::FunctionObjective blows_up(1, {}, [](std::span<const double> x, std::span<double> g) {
    if (x[0] > 0) throw NonFiniteError("test_kernel", 3, false, 5);
    g[0] = 2 * x[0];
    return x[0] * x[0];
  });
  tune::NonFiniteAsInfinite guarded(blows_up);
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
}  // namespace simgrad::dist
