// Sampling one random event from its uniform draw: the element body of infection, seeding and
// death. Hard in value when straight-through, relaxed otherwise; the gradient is always that
// of the relaxed value (disease_model.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/portable.hpp"
#include "core/rng.hpp"
#include "sims/contagion/disease_model.hpp"

namespace simgrad::contagion {

// The draw index of each kind of event, so that no two share a Philox block (core/rng.hpp).
enum EventDraw : std::uint32_t { kInfectionDraw = 0, kSeedingDraw = 1, kDeathDraw = 2, kContactDraw = 3 };

// The uniform draw of an event of kind `draw` of agent `agent` on day `day`.
SIMGRAD_HD inline double event_draw(std::uint64_t seed, std::uint64_t day, std::uint64_t agent, EventDraw draw) {
  return uniform01(seed, day, agent, draw);
}

// A sampled event: hard (0 or 1), relaxed value, d(relaxed)/dp, and the value a state carries.
struct Event {
  double hard;
  double soft;
  double slope;
  SIMGRAD_HD double value(bool straight_through) const { return straight_through ? hard : soft; }
};

// Only the hard value, for forward passes that need nothing else: [u < p], which is also the
// Gumbel-max sample of the two outcomes with logistic noise logit(u).
SIMGRAD_HD inline double hard_event(double p, double u) { return u < p ? 1.0 : 0.0; }

// The event with probability p drawn from uniform u.
SIMGRAD_HD inline Event sample_event(double p, double u, Sampler sampler, double temperature) {
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

// A susceptible agent's infection on a day: probability (1 - protected share) (1 - exp(-k H))
// for hazard sum H and k = R susceptibility / mean interactions, sampled from its draw u. The
// event's value (hard or relaxed, as the settings say) and its hard value.
struct Infection {
  double value;
  double hard;
};
SIMGRAD_HD inline Infection infection(double k, double hazard, double protect, double u, Sampler sampler,
                                      double temperature, bool straight_through) {
  const double prob = (1.0 - protect) * -std::expm1(-k * hazard);
  if (straight_through) {
    const double hard = hard_event(prob, u);
    return {hard, hard};
  }
  const Event ev = sample_event(prob, u, sampler, temperature);
  return {ev.soft, ev.hard};
}

}  // namespace simgrad::contagion
