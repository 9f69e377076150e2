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

}  // namespace simgrad::contagion
