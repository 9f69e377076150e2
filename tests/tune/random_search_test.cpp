#include "tune/random_search.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <vector>

#include "resume_check.hpp"
#include "test_problems.hpp"

namespace simgrad::tune {
namespace {

using testing::BoxWatch;
using testing::Quadratic;

// Records every point evaluated.
class Recorder final : public Objective {
 public:
  explicit Recorder(std::size_t dimension) : dimension_(dimension) {}
  std::size_t dimension() const override { return dimension_; }
  double value(std::span<const double> x) override {
    points.emplace_back(x.begin(), x.end());
    return x[0];
  }
  double value_and_gradient(std::span<const double>, std::span<double>) override {
    throw std::logic_error("random search must not ask for gradients");
  }
  std::vector<std::vector<double>> points;

 private:
  std::size_t dimension_;
};

// The points a seeded run of `count` iterations evaluates.
std::vector<std::vector<double>> points_of(uint64_t seed, int count) {
  Recorder recorder(3);
  OptimizerOptions options;
  options.seed = seed;
  options.max_iterations = count;
  RandomSearch search(options);
  minimize(search, recorder, std::vector<double>{0.5, 0.5, 0.5}, std::vector<double>{0, -1, 10},
           std::vector<double>{1, 1, 20});
  return recorder.points;
}

TEST(RandomSearch, StartsAtX0ThenDrawsUniformlyInTheBounds) {
  const auto points = points_of(1, 2000);
  ASSERT_EQ(points.size(), 2000u);
  EXPECT_EQ(points[0], (std::vector<double>{0.5, 0.5, 10.0}));  // x0, projected
  double mean_last = 0;
  for (std::size_t k = 1; k < points.size(); ++k) {
    EXPECT_GE(points[k][0], 0.0);
    EXPECT_LE(points[k][0], 1.0);
    EXPECT_GE(points[k][1], -1.0);
    EXPECT_LE(points[k][2], 20.0);
    mean_last += points[k][2] / double(points.size() - 1);
  }
  EXPECT_NEAR(mean_last, 15.0, 0.3);
}

TEST(RandomSearch, IsDeterminedBySeed) {
  EXPECT_EQ(points_of(5, 50), points_of(5, 50));
  EXPECT_NE(points_of(5, 50), points_of(6, 50));
}

TEST(RandomSearch, KeepsTheBestSample) {
  Quadratic quadratic({0.25, 0.75}, {1.0, 1.0});
  OptimizerOptions options;
  options.max_iterations = 3000;
  RandomSearch search(options);
  const OptimizeResult result =
      minimize(search, quadratic, std::vector<double>{0.0, 0.0}, std::vector<double>{0.0, 0.0},
               std::vector<double>{1.0, 1.0});
  EXPECT_LT(result.loss, 1e-3);
  EXPECT_EQ(result.gradient_evaluations, 0);
  for (std::size_t i = 1; i < result.history.size(); ++i) {
    EXPECT_LE(result.history[i].best_loss, result.history[i - 1].best_loss);
  }
}

TEST(RandomSearch, NeedsFiniteBounds) {
  Quadratic quadratic({0.0}, {1.0});
  RandomSearch search;
  EXPECT_THROW(search.init(quadratic, std::vector<double>{0.0}), std::invalid_argument);
}

TEST(RandomSearch, ResumesBitForBit) {
  Quadratic quadratic = Quadratic::ellipsoid(3, 10, 0.2);
  OptimizerOptions options;
  options.seed = 4;
  testing::expect_exact_resume<RandomSearch>(options, quadratic, std::vector<double>(3, 0.9),
                                             std::vector<double>(3, -1.0),
                                             std::vector<double>(3, 1.0), 50, 120);
}

}  // namespace
}  // namespace simgrad::tune
