// Small populations and models shared by the contagion tests.
#pragma once

#include "sims/contagion/disease_model.hpp"
#include "sims/contagion/population.hpp"

namespace simgrad::contagion::testing {

// A synthetic population of n agents with all four layers.
inline Population small_population(Index n, std::uint64_t seed = 3) {
  SyntheticSettings s;
  s.agents = n;
  s.seed = seed;
  return make_synthetic_population(s);
}

// GradABM's model for `days` days on a population, with a visible epidemic in a few weeks.
inline DiseaseModel small_model(const Population& p, int days, double initial_infected = 0.05) {
  DiseaseModel m;
  m.settings.days = days;
  m.reset(p.age_groups, p.layers);
  m.parameters.initial_infected.value[0] = initial_infected;
  for (double& r : m.parameters.reproduction.value) r = 3.0;
  m.parameters.mortality.value[0] = 0.2;
  m.settings.reduction_start = 5;
  m.settings.vaccination_start = 3;
  m.parameters.vaccination_rate.value[0] = 0.004;
  for (double& c : m.parameters.contact_reduction.value) c = 0.2;
  return m;
}

}  // namespace simgrad::contagion::testing
