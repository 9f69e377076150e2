// Forecasting R after the fitted weeks: each rule against values worked by hand, and the backtest
// choosing the rule that a curve's own history favours.
#include "sims/contagion/reproduction_forecast.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace simgrad::contagion {
namespace {

TEST(ReproductionForecast, EachRuleExtendsTheFittedWeeks) {
  // R halves every week for four fitted weeks; two more weeks are forecast.
  const std::vector<double> fitted = {4.0, 2.0, 1.0, 0.5, 9.0, 9.0};
  std::vector<double> last = fitted, mean = fitted, trend = fitted;
  apply_forecast({ReproductionRule::kLast, 3}, last, 4);
  apply_forecast({ReproductionRule::kMean, 3}, mean, 4);
  apply_forecast({ReproductionRule::kTrend, 3}, trend, 4);
  EXPECT_EQ(last[4], 0.5);
  EXPECT_EQ(last[5], 0.5);
  EXPECT_NEAR(mean[4], 1.0, 1e-12);  // geometric mean of 2, 1, 0.5
  EXPECT_NEAR(mean[5], 1.0, 1e-12);
  EXPECT_NEAR(trend[4], 0.25, 1e-12);  // the halving continues
  EXPECT_NEAR(trend[5], 0.125, 1e-12);
  for (std::size_t w = 0; w < 4; ++w) EXPECT_EQ(trend[w], fitted[w]);  // fitted weeks untouched
}

TEST(ReproductionForecast, BacktestUsesOnlyTheFittedWeeksAndPrefersTheCurvesOwnPattern) {
  // A steady decline: the trend predicts every later fitted week exactly.
  std::vector<double> decline;
  for (int w = 0; w < 8; ++w) decline.push_back(2.0 * std::pow(0.8, w));
  EXPECT_NEAR(backtest_error({ReproductionRule::kTrend, 3}, decline, 8, 3), 0.0, 1e-12);
  EXPECT_GT(backtest_error({ReproductionRule::kLast, 3}, decline, 8, 3), 0.1);
  EXPECT_EQ(best_rule(3, decline, 8, 3), ReproductionRule::kTrend);
  // Weeks after the fitted ones do not count: changing them changes no error.
  std::vector<double> changed = decline;
  changed.push_back(50.0);
  decline.push_back(0.01);
  EXPECT_EQ(backtest_error({ReproductionRule::kMean, 3}, changed, 8, 3), backtest_error({ReproductionRule::kMean, 3}, decline, 8, 3));
  // Noise around a level: the mean beats carrying the last value.
  const std::vector<double> level = {1.0, 1.2, 0.9, 1.1, 1.0, 0.85, 1.15, 1.0};
  EXPECT_EQ(best_rule(3, level, 8, 2), ReproductionRule::kMean);
  EXPECT_TRUE(std::isinf(backtest_error({ReproductionRule::kMean, 3}, level, 3, 2)));  // nothing to score
}

}  // namespace
}  // namespace simgrad::contagion
