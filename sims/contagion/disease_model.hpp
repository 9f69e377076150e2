// The disease: stages, their durations, the samplers that relax stochastic events, and the
// parameters being tuned, apart from the population (population.hpp) and the state.
//
// An agent is susceptible until infected on day tau; then exposed for `exposed_days`,
// infectious for `infectious_days`, and then removed: dead with probability `mortality`,
// otherwise recovered. Variants by configuration: SEIR (GradABM's, the default), SIR
// (exposed_days 0), SEIRS and SIS (immune_days > 0: a recovered agent is susceptible again
// after that many days; SIS is SIR with immune_days 1).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/field.hpp"

namespace simgrad::contagion {

// How a random event (infection, seeding, death) with probability p is sampled from its uniform
// draw u. Both are hard in value (1 when u < p) when straight-through, and differ in the
// relaxed value whose gradient they pass.
enum class Sampler {
  kGumbelSoftmax,  // straight-through Gumbel-softmax: gradient of sigmoid((logit p - logit u) / temperature)
  kStraightThrough,  // straight-through Bernoulli: relaxed value p, d sample / d p = 1 (unbiased for one event's mean)
};

// How R moves between its weekly values.
enum class ReproductionCurve {
  kWeekly,  // a step: week w's value all week
  kLinear,  // piecewise-linear through knots on the first day of each week (week w's value on day 7w)
};

// What a state counts on a day (losses and reports read these from the state).
enum class Count {
  kInfections,  // newly infected that day
  kCases,       // newly infectious that day (entering the infectious stage)
  kDeaths,      // died that day
  kInfectious,  // in the infectious stage that day (prevalence)
};

// Settings that are not tuned.
struct DiseaseSettings {
  int days = 60;
  int exposed_days = 3;
  int infectious_days = 5;
  int immune_days = 0;  // 0: immunity for life; > 0: susceptible again after that many days recovered
  Sampler sampler = Sampler::kGumbelSoftmax;
  double temperature = 0.5;  // of the Gumbel-softmax, in (0, 1]
  // true: events are hard in value, the sampler's gradient passed straight through (tuning);
  // false: the relaxed twin, events take their relaxed value (sigmoid, or p), which is what
  // finite differences of the gradient see with the noise fixed.
  bool straight_through = true;
  bool sampled_deaths = true;  // false: deaths are mortality x agents leaving infection (expected)
  std::uint64_t seed = 1;
  std::vector<double> mean_interactions = {2, 2, 4, 4, 4, 4, 4, 3};  // Ibar per age group
  std::vector<double> layer_weight = {1.0};                          // per contact layer
  ReproductionCurve reproduction_curve = ReproductionCurve::kWeekly;
  // Share of each layer's contacts active on a day: row t mod rows, one entry per layer (seven
  // rows make a weekly pattern). A contact is active on day t when its own draw, keyed by (seed,
  // t, the pair), falls below the share: the same for both directions. Empty: every contact, every day.
  std::vector<std::vector<double>> active_share;
  int reduction_start = 0;    // first day contact reductions apply
  int vaccination_start = 0;  // first day of vaccination

  int count_window = 7;  // the longest window that losses count over (days)

  // Days from infection to removal.
  int removal_day() const { return exposed_days + infectious_days; }
  // Days of infection history each agent keeps: long enough to shed, and to count an event
  // (death, the latest) over the longest window.
  int history_days() const { return removal_day() + count_window; }
};

// Every tuned parameter, GradABM's constants by default (../shared/data/README.md): values and
// the adjoints a backward pass accumulates, always differentiable.
struct DiseaseParameters {
  Array<1> reproduction;       // R per week (the last value holds for later weeks)
  Array<1> mortality;          // 1
  Array<1> initial_infected;   // share of agents infected on day 0
  Array<1> susceptibility;     // per age group
  Array<1> infectiousness;     // [exposed, infectious]: A of a stage
  Array<1> profile;            // g: per day since infection, exposed_days + infectious_days entries
  Array<1> contact_reduction;  // per layer, from settings.reduction_start on
  Array<1> vaccination_rate;   // share of agents protected per day from settings.vaccination_start on
  Array<1> reporting;          // share of counted events that the data records (losses scale by it)
  Array<1> ascertainment;      // share of cases that the data records, for series that say so (deaths
                               // are nearly all recorded, cases far from all: two shares, fitted jointly)

  std::vector<Array<1>*> all() {
    return {&reproduction, &mortality, &initial_infected, &susceptibility, &infectiousness, &profile,
            &contact_reduction, &vaccination_rate, &reporting, &ascertainment};
  }
};

// The model: settings and parameters for a population with `age_groups` age groups and
// `layers` contact layers; GradABM's values.
struct DiseaseModel {
  DiseaseSettings settings;
  DiseaseParameters parameters;

  // Sizes every parameter for the settings and fills GradABM's values.
  void reset(int age_groups, int layers);
  // A copy whose events are hard in value (straight through), for scoring a tuned model on the
  // hard one without changing it.
  DiseaseModel hard_twin() const {
    DiseaseModel hard = *this;
    hard.settings.straight_through = true;
    return hard;
  }
  // Where day t lies between the weekly values of R: week `week`, and the share of the next
  // week's value in R (0 for a step, and after the last value).
  struct Knots {
    std::size_t week;
    double next_share;
  };
  Knots reproduction_knots(int t) const {
    const std::size_t n = parameters.reproduction.values().size();
    const std::size_t w = std::min(static_cast<std::size_t>(t / 7), n - 1);
    if (settings.reproduction_curve == ReproductionCurve::kWeekly || w + 1 >= n) return {w, 0.0};
    return {w, (t % 7) / 7.0};
  }
  // R on day t.
  double reproduction_on(int t) const {
    const std::span<const double> r = parameters.reproduction.values();
    const Knots k = reproduction_knots(t);
    return k.next_share == 0.0 ? r[k.week] : (1.0 - k.next_share) * r[k.week] + k.next_share * r[k.week + 1];
  }
  // Share of layer l's contacts active on day t (1 without a schedule).
  double active_share_on(int layer, int t) const {
    if (settings.active_share.empty()) return 1.0;
    return settings.active_share[static_cast<std::size_t>(t) % settings.active_share.size()][static_cast<std::size_t>(layer)];
  }
  // Share protected by vaccination on day t, and its derivative by the rate.
  double protected_share(int t, double* d_rate = nullptr) const;
  // Weight of a contact of layer l on day t (1 - reduction after the start).
  double contact_weight(int layer, int t) const;
  // Infectiousness A[stage] g[k] of an agent k days after infection (0 once removed).
  double shedding(int k) const;
};

}  // namespace simgrad::contagion
