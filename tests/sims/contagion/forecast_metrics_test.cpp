#include "sims/contagion/forecast_metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace simgrad::contagion {
namespace {

TEST(ForecastMetrics, NdRmseAndMaeOfAKnownForecast) {
  const std::vector<double> truth = {10, 20, 30, 40}, forecast = {12, 18, 30, 44};
  const ForecastMetrics m = forecast_metrics(forecast, truth);
  EXPECT_DOUBLE_EQ(m.nd, 8.0 / 100.0);
  EXPECT_DOUBLE_EQ(m.mae, 2.0);
  EXPECT_DOUBLE_EQ(m.rmse, std::sqrt(24.0 / 4.0));
  EXPECT_THROW(forecast_metrics(forecast, std::vector<double>{1.0}), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::contagion
