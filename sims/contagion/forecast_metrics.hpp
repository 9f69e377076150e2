// Forecast scores against held-out truth, as GradABM reports them.
#pragma once

#include <span>

namespace simgrad::contagion {

struct ForecastMetrics {
  double nd = 0.0;    // normalized deviation: sum |error| / sum |truth|
  double rmse = 0.0;  // root mean squared error
  double mae = 0.0;   // mean absolute error
};

// Scores of `forecast` against `truth` (same length, at least one entry).
ForecastMetrics forecast_metrics(std::span<const double> forecast, std::span<const double> truth);

}  // namespace simgrad::contagion
