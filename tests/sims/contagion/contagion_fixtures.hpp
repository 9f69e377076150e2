// Small populations and models shared by the contagion tests.
#pragma once

#include <string>
#include <vector>

#include "core/gradcheck.hpp"
#include "sims/contagion/disease_model.hpp"
#include "sims/contagion/population.hpp"
#include "tune/problem.hpp"

namespace simgrad::contagion::testing {

// A synthetic population of n agents with all four layers.
inline Population small_population(Index n, std::uint64_t seed = 3) {
  SyntheticOptions s;
  s.agents = n;
  s.seed = seed;
  return make_synthetic_population(s);
}

// GradABM's model for `days` days on a population, with a visible epidemic in a few weeks.
inline DiseaseModel small_model(const Population& p, int days, double initial_infected = 0.05) {
  DiseaseModel m;
  m.settings.days = days;
  m.reset(p.age_groups, p.layers);
  m.parameters.initial_infected.values()[0] = initial_infected;
  m.parameters.reproduction.fill(3.0);
  m.parameters.mortality.values()[0] = 0.2;
  m.settings.reduction_start = 5;
  m.settings.vaccination_start = 3;
  m.parameters.vaccination_rate.values()[0] = 0.004;
  m.parameters.contact_reduction.fill(0.2);
  return m;
}

// The problem's gradient at its initial point against central differences of its value, each
// check labelled with its parameter component.
inline GradCheckReport check_problem_gradient(tune::Problem& problem, const GradCheckOptions& options = {}) {
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  std::vector<std::string> labels;
  for (std::size_t k = 0; k < x.size(); ++k) labels.push_back(problem.space().component_name(k));
  return check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g, options, labels);
}

}  // namespace simgrad::contagion::testing
