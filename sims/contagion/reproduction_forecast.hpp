// How R of the weeks after the fitted ones is forecast from the fitted weekly R: the last week's
// value held (GradABM's), the mean of the last weeks, or their log-linear trend continued. The
// rule can be chosen by a backtest on the fitted R curve alone (no held-out data).
#pragma once

#include <string>
#include <vector>

namespace simgrad::contagion {

enum class ReproductionRule {
  kLast,   // the last fitted week's R holds
  kMean,   // the geometric mean of the last `weeks` fitted weeks holds
  kTrend,  // a least-squares line through log R of the last `weeks` fitted weeks, continued
};

struct ReproductionForecast {
  ReproductionRule rule = ReproductionRule::kLast;
  int weeks = 3;  // fitted weeks the mean and the trend look back over
};

// R of week `week` (>= 1) predicted by a rule from weeks [0, known) of r (known >= 1).
double forecast_week(const ReproductionForecast& forecast, const std::vector<double>& r, int known, int week);

// Replaces r[w] for w >= fitted by the rule's forecast from the first `fitted` weeks.
void apply_forecast(const ReproductionForecast& forecast, std::vector<double>& r, int fitted);

// Backtest on the fitted weeks only: the mean |log R - log forecast| over every origin k in
// [weeks, fitted) and horizon h in [1, horizon] with k + h - 1 < fitted, predicting week
// k + h - 1 from weeks [0, k). Infinity when no week can be scored.
double backtest_error(const ReproductionForecast& forecast, const std::vector<double>& r, int fitted, int horizon);

// The rule with the smallest backtest error (the first of last, mean, trend on ties).
ReproductionRule best_rule(int weeks, const std::vector<double>& r, int fitted, int horizon);

// The scenario's name of a rule, and back.
std::string rule_name(ReproductionRule rule);
ReproductionRule rule_of(const std::string& name);

}  // namespace simgrad::contagion
