// Estimators of the derivative of the hard model's expected count by R, side by side: the
// straight-through (pathwise) gradient the tuner uses, the score-function (likelihood-ratio)
// estimator, and finite differences over seeds with common random numbers.
//
// The hard model's count f is a step function of R for any one seed, so d E[f] / dR is the
// derivative of an average over seeds. The score-function estimator is unbiased for it:
// E[(f - b) d log P(events) / dR], where P multiplies, over every agent and day with a shedding
// contact, p or 1 - p of its infection event as it fell (p = (1 - V)(1 - exp(-lambda)), given
// the past), and the baseline b (the mean of f over the other seeds) lowers the variance without
// a bias. The straight-through gradient is biased (it differentiates a relaxation) but has a far
// smaller variance. Finite differences of the mean over seeds, with every seed run at R - h and
// R + h, are the reference.
#pragma once

#include "sims/contagion/disease_model.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/population.hpp"

namespace simgrad::contagion {

// Mean, standard deviation and standard error of an estimator's per-seed values.
struct EstimatorStats {
  double mean = 0.0, sd = 0.0, standard_error = 0.0;
};

struct EstimatorComparison {
  double expected_count = 0.0;      // E[f] over the seeds
  EstimatorStats straight_through;  // pathwise, with the model's sampler and temperature
  EstimatorStats score_function;    // likelihood ratio with a leave-one-out baseline
  EstimatorStats finite_difference; // (f(R + h) - f(R - h)) / 2h per seed, common random numbers
};

// What f counts: `count` in the window of `window` days ending on `day`.
struct CountWindow {
  Count count = Count::kCases;
  int day = 20;
  int window = 7;
};

// The three estimators of d E[f] / dR (R moved alike in every week) over seeds seed, seed + 1,
// ... of the hard model; `step` is the finite differences' h. The model's R must be one value.
EstimatorComparison compare_estimators(const Population& population, const DiseaseModel& model, const CountWindow& f,
                                       int seeds, double step);

}  // namespace simgrad::contagion
