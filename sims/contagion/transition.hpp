// Sampling one random event from its uniform draw: the element body of infection, seeding and
// death. Hard in value when straight-through, relaxed otherwise; the gradient is always that
// of the relaxed value (disease_model.hpp).
#pragma once

#include <algorithm>
#include <cmath>

#include "sims/contagion/disease_model.hpp"

namespace simgrad::contagion {

// A sampled event: hard (0 or 1), relaxed value, d(relaxed)/dp, and the value a state carries.
struct Event {
  double hard;
  double soft;
  double slope;
  double value(bool straight_through) const { return straight_through ? hard : soft; }
};

// Only the hard value, for forward passes that need nothing else: [u < p], which is also the
// Gumbel-max sample of the two outcomes with logistic noise logit(u).
inline double hard_event(double p, double u) { return u < p ? 1.0 : 0.0; }

// The event with probability p drawn from uniform u.
inline Event sample_event(double p, double u, Sampler sampler, double temperature) {
  const double hard = hard_event(p, u);
  if (sampler == Sampler::kStraightThrough) return {hard, p, 1.0};
  // sigmoid((logit p - logit u) / T) and its slope. p is kept off 0 and 1 so that the slope
  // takes its limit there (finite for T = 1, zero for T < 1) instead of 0/0.
  const double pc = std::clamp(p, 1e-300, 1.0 - 1e-16);
  // logit p - logit u as one logarithm (the adjoint evaluates this for most agents every day).
  const double x = std::log((pc * (1.0 - u)) / ((1.0 - pc) * u)) / temperature;
  const double e = std::exp(-std::abs(x));
  const double soft = x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
  const double soft_slope = e / ((1.0 + e) * (1.0 + e));  // sigmoid(x) (1 - sigmoid(x))
  return {hard, soft, soft_slope / (temperature * pc * (1.0 - pc))};
}

}  // namespace simgrad::contagion
