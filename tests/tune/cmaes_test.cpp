#include "tune/cmaes.hpp"

#include <gtest/gtest.h>

#include <vector>

#include <Eigen/Core>

#include "resume_check.hpp"
#include "test_problems.hpp"

namespace simgrad::tune {
namespace {

using testing::BoxWatch;
using testing::Quadratic;

OptimizerOptions seeded(uint64_t seed) {
  OptimizerOptions options;
  options.seed = seed;
  options.max_iterations = 2000;
  options.target_loss = 1e-8;
  return options;
}

// CMA-ES on a 5D sphere and a 5D ellipsoid of condition 1e3, where it must learn the scaling.
class CmaEsTarget : public ::testing::TestWithParam<double> {};

TEST_P(CmaEsTarget, ReachesTheTargetOnA5dQuadratic) {
  Quadratic quadratic = Quadratic::ellipsoid(5, GetParam(), 0.5);
  CmaEs cmaes(seeded(1));
  const OptimizeResult result = minimize(cmaes, quadratic, std::vector<double>(5, 3.0));
  EXPECT_TRUE(result.reached_target) << result.stop_reason;
  EXPECT_EQ(result.gradient_evaluations, 0);
  EXPECT_EQ(result.rollouts, long(result.iterations) * cmaes.population_size());
  EXPECT_LT(result.rollouts, 3000);
}

INSTANTIATE_TEST_SUITE_P(Conditions, CmaEsTarget, ::testing::Values(1.0, 1e3));

TEST(CmaEs, UsesTheTutorialPopulationSize) {
  Quadratic quadratic = Quadratic::ellipsoid(10, 1, 0.0);
  CmaEs cmaes;
  cmaes.init(quadratic, std::vector<double>(10, 1.0));
  EXPECT_EQ(cmaes.population_size(), 10);  // 4 + floor(3 ln 10)
  OptimizerOptions options;
  options.population_size = 24;
  CmaEs larger(options);
  larger.init(quadratic, std::vector<double>(10, 1.0));
  EXPECT_EQ(larger.population_size(), 24);
}

TEST(CmaEs, SameSeedSameRunOtherSeedOtherRun) {
  Quadratic quadratic = Quadratic::ellipsoid(4, 10, 0.5);
  OptimizerOptions options = seeded(7);
  options.max_iterations = 30;
  CmaEs first(options), second(options);
  const OptimizeResult a = minimize(first, quadratic, std::vector<double>(4, 2.0));
  const OptimizeResult b = minimize(second, quadratic, std::vector<double>(4, 2.0));
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.loss, b.loss);
  options.seed = 8;
  CmaEs other(options);
  EXPECT_NE(minimize(other, quadratic, std::vector<double>(4, 2.0)).x, a.x);
}

// The optimum at a corner of the box: samples are evaluated only inside, and the mean is held
// at the corner by the distance penalty.
TEST(CmaEs, FindsABoundActiveOptimumEvaluatingOnlyInsideTheBox) {
  Quadratic quadratic({2.0, 2.0, 0.0, 2.0, 0.0}, std::vector<double>(5, 1.0));
  const std::vector<double> lower(5, -1.0), upper(5, 1.0);
  BoxWatch watched(quadratic, lower, upper);
  OptimizerOptions options = seeded(3);
  options.target_loss = 1.5 + 1e-8;  // the box's minimum: three components 1 away from centre
  CmaEs cmaes(options);
  const OptimizeResult result =
      minimize(cmaes, watched, std::vector<double>(5, 0.0), lower, upper);
  EXPECT_FALSE(watched.left_box);
  EXPECT_TRUE(result.reached_target) << result.stop_reason;
  EXPECT_EQ(result.x[0], 1.0);
  EXPECT_NEAR(result.x[2], 0.0, 1e-3);
  for (double x : cmaes.current_x()) EXPECT_LE(x, 1.0);
}

// Results must not depend on how many threads Eigen may use for its matrix products.
TEST(CmaEs, SameBitsAtAnyThreadCount) {
  Quadratic quadratic = Quadratic::ellipsoid(80, 10, 0.5);
  OptimizerOptions options = seeded(2);
  options.max_iterations = 6;
  const auto run_with_threads = [&](int threads) {
    Eigen::setNbThreads(threads);
    CmaEs cmaes(options);
    return minimize(cmaes, quadratic, std::vector<double>(80, 1.0)).x;
  };
  const std::vector<double> single = run_with_threads(1);
  const std::vector<double> several = run_with_threads(4);
  Eigen::setNbThreads(0);
  EXPECT_EQ(single, several);
}

TEST(CmaEs, ResumesBitForBit) {
  Quadratic quadratic = Quadratic::ellipsoid(6, 100, 0.5);
  const std::vector<double> lower(6, -4.0), upper(6, 4.0);
  OptimizerOptions options = seeded(11);
  options.target_loss = -1;
  testing::expect_exact_resume<CmaEs>(options, quadratic, std::vector<double>(6, 3.0), lower,
                                      upper, 17, 45);
}

}  // namespace
}  // namespace simgrad::tune
