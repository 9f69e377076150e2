// Calibration reports: counts of a run in the windows of observed data, their mean and spread
// over many seeds of the hard model, and the SEIRM baseline fitted to the same windows.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "sims/contagion/disease_model.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/population.hpp"

namespace simgrad::contagion {

// The model's counts in each window (not scaled by reporting) from one run of `days` days.
std::vector<double> run_counts(const Population& population, DiseaseModel& model, Count count,
                               std::span<const Observation> windows, int days);

struct Spread {
  std::vector<double> mean, sd;  // per window, of reporting x count
};

// Counts of the hard model (straight-through values) over seeds seed, seed + 1, ...
Spread hard_counts_over_seeds(const Population& population, const DiseaseModel& model, Count count,
                              std::span<const Observation> windows, int days, int seeds);

// The SEIRM baseline: fitted by L-BFGS (R per week up to the last fitted window, mortality,
// initial share, reporting where `fit_reporting`) to `fit` on the given scale, then run to
// `days` days; returns its reported counts in `windows`.
struct SeirmBaseline {
  double population;
  double exposed_days = 3.0;
  double infectious_days = 5.0;
  int iterations = 200;
  bool fit_reporting = false;
  int weeks = 1;  // weeks of R fitted; later weeks follow the last, or:
  std::function<void(std::vector<double>&)> extend_reproduction;  // sets R after the fitted weeks
};
std::vector<double> seirm_fit_and_forecast(const SeirmBaseline& baseline, const Series& fit, Scale scale,
                                           std::span<const Observation> windows, int days);

}  // namespace simgrad::contagion
