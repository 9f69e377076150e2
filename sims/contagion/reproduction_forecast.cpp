#include "sims/contagion/reproduction_forecast.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace simgrad::contagion {

double forecast_week(const ReproductionForecast& forecast, const std::vector<double>& r, int known, int week) {
  if (known < 1 || static_cast<std::size_t>(known) > r.size()) throw std::invalid_argument("forecast_week: no fitted weeks");
  const int first = std::max(0, known - std::max(1, forecast.weeks));
  const int n = known - first;
  if (forecast.rule == ReproductionRule::kLast || n == 1) return r[static_cast<std::size_t>(known - 1)];
  double mean_w = 0.0, mean_log = 0.0;
  for (int w = first; w < known; ++w) {
    mean_w += w;
    mean_log += std::log(r[static_cast<std::size_t>(w)]);
  }
  mean_w /= n;
  mean_log /= n;
  if (forecast.rule == ReproductionRule::kMean) return std::exp(mean_log);
  double sxy = 0.0, sxx = 0.0;
  for (int w = first; w < known; ++w) {
    sxy += (w - mean_w) * (std::log(r[static_cast<std::size_t>(w)]) - mean_log);
    sxx += (w - mean_w) * (w - mean_w);
  }
  return std::exp(mean_log + sxy / sxx * (week - mean_w));
}

void apply_forecast(const ReproductionForecast& forecast, std::vector<double>& r, int fitted) {
  const std::vector<double> known = r;
  for (std::size_t w = static_cast<std::size_t>(std::max(fitted, 1)); w < r.size(); ++w)
    r[w] = forecast_week(forecast, known, fitted, static_cast<int>(w));
}

double backtest_error(const ReproductionForecast& forecast, const std::vector<double>& r, int fitted, int horizon) {
  double sum = 0.0;
  int scored = 0;
  for (int k = std::max(1, forecast.weeks); k < fitted; ++k)
    for (int h = 1; h <= horizon && k + h - 1 < fitted; ++h) {
      const int week = k + h - 1;
      sum += std::abs(std::log(r[static_cast<std::size_t>(week)]) - std::log(forecast_week(forecast, r, k, week)));
      ++scored;
    }
  return scored > 0 ? sum / scored : std::numeric_limits<double>::infinity();
}

ReproductionRule best_rule(int weeks, const std::vector<double>& r, int fitted, int horizon) {
  ReproductionRule best = ReproductionRule::kLast;
  double least = std::numeric_limits<double>::infinity();
  for (ReproductionRule rule : {ReproductionRule::kLast, ReproductionRule::kMean, ReproductionRule::kTrend}) {
    const double e = backtest_error({rule, weeks}, r, fitted, horizon);
    if (e < least) {
      least = e;
      best = rule;
    }
  }
  return best;
}

std::string rule_name(ReproductionRule rule) {
  switch (rule) {
    case ReproductionRule::kMean: return "mean";
    case ReproductionRule::kTrend: return "trend";
    default: return "last";
  }
}

ReproductionRule rule_of(const std::string& name) {
  if (name == "mean") return ReproductionRule::kMean;
  if (name == "trend") return ReproductionRule::kTrend;
  return ReproductionRule::kLast;
}

}  // namespace simgrad::contagion
