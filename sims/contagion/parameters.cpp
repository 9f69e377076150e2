#include "sims/contagion/parameters.hpp"

#include <algorithm>
#include <stdexcept>

namespace simgrad::contagion {

const std::vector<ParameterInfo>& epidemic_parameters() {
  static const std::vector<ParameterInfo> info = {
      {"reproduction", "1", "week", "R: transmission scale of the hazard, per week (GradABM's R)"},
      {"mortality", "1", "model", "probability that an infected agent dies when leaving infection"},
      {"initial_infected", "1", "model", "share of agents infected on day 0"},
      {"susceptibility", "1", "age group", "S: susceptibility multiplier of an age group"},
      {"infectiousness", "1", "stage", "A: infectiousness of the exposed and the infectious stage"},
      {"profile", "1", "day since infection", "g: infectiousness by day since infection (Gamma increments)"},
      {"contact_reduction", "1", "layer", "share of a layer's contacts removed from the intervention day on"},
      {"vaccination_rate", "1/day", "model", "share of agents protected per day from the vaccination day on"},
      {"reporting", "1", "model", "share of counted events recorded in the data"},
      {"ascertainment", "1", "model", "share of cases recorded in the data, for series scaled by it (cases and deaths fitted jointly)"},
  };
  return info;
}

Quantity& quantity(DiseaseParameters& parameters, const std::string& name) {
  const std::vector<Quantity*> all = parameters.all();
  const auto& info = epidemic_parameters();
  for (std::size_t k = 0; k < info.size(); ++k)
    if (info[k].name == name) return *all[k];
  throw std::invalid_argument("unknown epidemic parameter \"" + name + "\"");
}

tune::BoundParameter bind_parameter(DiseaseParameters& parameters, const ParameterRequest& request) {
  Quantity& q = quantity(parameters, request.name);
  const std::size_t entries = q.value.size();
  std::size_t tuned = request.uniform ? 1 : entries;
  if (!request.uniform && request.entries > 0) tuned = std::min(entries, static_cast<std::size_t>(request.entries));
  // Entry i follows tuned value owner(i).
  auto owner = [tuned](std::size_t i) { return std::min(i, tuned - 1); };
  tune::BoundParameter b;
  b.parameter.name = request.name;
  for (const ParameterInfo& info : epidemic_parameters())
    if (info.name == request.name) b.parameter.unit = info.unit;
  b.parameter.lower = request.lower;
  b.parameter.upper = request.upper;
  b.parameter.transform = request.transform;
  b.parameter.initial.assign(q.value.begin(), q.value.begin() + static_cast<std::ptrdiff_t>(tuned));
  Quantity* target = &q;
  b.assign = [target, owner, entries](std::span<const double> x) {
    for (std::size_t i = 0; i < entries; ++i) target->value[i] = x[owner(i)];
  };
  b.gradient = [target, owner, entries, tuned](std::span<double> g) {
    std::fill(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(tuned), 0.0);
    for (std::size_t i = 0; i < entries; ++i) g[owner(i)] += target->adjoint[i];
  };
  return b;
}

}  // namespace simgrad::contagion
