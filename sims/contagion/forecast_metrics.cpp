#include "sims/contagion/forecast_metrics.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace simgrad::contagion {

ForecastMetrics forecast_metrics(std::span<const double> forecast, std::span<const double> truth) {
  if (forecast.size() != truth.size() || truth.empty())
    throw std::invalid_argument("forecast_metrics: forecast and truth need the same, non-zero length");
  double abs_error = 0.0, sq_error = 0.0, abs_truth = 0.0;
  for (std::size_t k = 0; k < truth.size(); ++k) {
    const double e = forecast[k] - truth[k];
    abs_error += std::abs(e);
    sq_error += e * e;
    abs_truth += std::abs(truth[k]);
  }
  const double n = static_cast<double>(truth.size());
  return {abs_truth > 0.0 ? abs_error / abs_truth : std::numeric_limits<double>::infinity(), std::sqrt(sq_error / n),
          abs_error / n};
}

}  // namespace simgrad::contagion
