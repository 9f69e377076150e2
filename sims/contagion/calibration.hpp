// Calibration reports: counts of a run in the windows of observed data, their mean and spread
// over many seeds of the hard model, the SEIRM baseline fitted to the same windows, and a tuned
// calibration evaluated on its fitted and held-out windows against the baselines.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "sims/contagion/disease_model.hpp"
#include "sims/contagion/forecast_metrics.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/population.hpp"
#include "sims/contagion/reproduction_forecast.hpp"

namespace simgrad::contagion {

// The model's counts of a series (its count and delay; not scaled by its share) in each window
// from one run of `days` days.
std::vector<double> run_counts(const Population& population, DiseaseModel& model, const Series& series,
                               std::span<const Observation> windows, int days);

struct Spread {
  std::vector<double> mean, sd;  // per window, of the series' share x count
};

// Counts of the hard model (straight-through values) over seeds seed, seed + 1, ...
Spread hard_counts_over_seeds(const Population& population, const DiseaseModel& model, const Series& series,
                              std::span<const Observation> windows, int days, int seeds);

// The SEIRM baseline: fitted by L-BFGS (R per week up to the last fitted window, mortality,
// initial share, reporting where `fit_reporting`, ascertainment where a series is scaled by it)
// to the series `fit` on the given scale, with the same smoothness penalty on R, then run to
// `days` days; returns the recorded counts of the first series in `windows`.
struct SeirmBaseline {
  double population;
  double exposed_days = 3.0;
  double infectious_days = 5.0;
  int iterations = 200;
  bool fit_reporting = false;
  int weeks = 1;  // weeks of R fitted; later weeks follow the last, or:
  std::function<void(Array<1>&)> extend_reproduction;  // sets R after the fitted weeks
  ReproductionSmoothness smoothness;
};
std::vector<double> seirm_fit_and_forecast(const SeirmBaseline& baseline, const std::vector<Series>& fit, Scale scale,
                                           std::span<const Observation> windows, int days);

// The observed data of a calibration: the forecast series with its fitted windows, the series
// fitted next to it (cases next to deaths), the forecast series' held-out windows after the
// fitted ones, and the scale and smoothness penalty of the fit.
struct CalibrationData {
  Series fit;
  std::vector<Series> also_fit;
  std::vector<Observation> held_out;
  Scale scale = Scale::kSqrt;
  ReproductionSmoothness smoothness;

  // Every fitted series, the forecast one first.
  std::vector<Series> fitted_series() const;
  // The forecast series' windows: the fitted ones, then the held-out ones.
  std::vector<Observation> windows() const;
  int last_fit_day() const { return fit.observations.back().day; }
  // Weeks of R that the fitted data constrains: infections before its last day less the lag of
  // the series that lags least (its count's days from infection, and its recording delay).
  int identified_weeks(const DiseaseSettings& settings) const;
};

// How a calibration is evaluated.
struct EvaluationOptions {
  int seeds = 20;          // runs of the hard model averaged
  bool baselines = true;   // score the baselines on the held-out windows
  ReproductionForecast reproduction;  // R after the identified weeks
  bool auto_rule = false;  // the rule whose backtest on the identified weeks' R scores best
};

// R of the weeks after the identified ones, set by a rule.
struct ReproductionExtension {
  ReproductionRule rule = ReproductionRule::kLast;
  int weeks = 0;
  // The backtest's mean |log error| of each rule (last, mean, trend); infinite where no week
  // could be scored.
  std::vector<std::pair<ReproductionRule, double>> backtest;
  std::vector<double> reproduction;  // R after the extension
};

// Sets r[w] for the weeks after the first `identified_weeks` by the options' rule (auto_rule:
// the rule whose backtest scores best) and says which rule and how each rule backtested.
ReproductionExtension extend_reproduction(const EvaluationOptions& options, int identified_weeks, Array<1>& r);

// A forecast of the held-out windows and its scores against them.
struct ScoredForecast {
  ForecastMetrics metrics;
  std::vector<double> forecast;
};

// A tuned calibration on the hard model.
struct CalibrationEvaluation {
  ReproductionExtension reproduction_forecast;  // R of the later weeks the evaluation runs with
  Spread hard;                                  // the forecast series over seeds, every window
  std::optional<ForecastMetrics> hard_fit;      // its scores on the fitted windows
  std::optional<double> r0;  // complete populations: expected infections by one infective in week 1
  struct AlsoFit {
    Count count;
    std::vector<double> data;
    Spread spread;
    ForecastMetrics fit;
  };
  std::vector<AlsoFit> also_fit;  // how the hard model fits the series fitted next to the forecast one
  // On the held-out windows, when there are some and the options ask for baselines: the tuned
  // model, GradABM's fixed expert parameters and the SEIRM ODE fitted to the same windows.
  bool forecast = false;
  std::vector<double> truth;
  ScoredForecast simgrad, expert, seirm;
  std::optional<ReproductionExtension> seirm_reproduction_forecast;
};

// Evaluates the model's tuned parameters over `days` days.
CalibrationEvaluation evaluate_calibration(const Population& population, const DiseaseModel& model,
                                           const CalibrationData& data, const EvaluationOptions& options, int days);

}  // namespace simgrad::contagion
