#include "sims/contagion/tunables.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace simgrad::contagion {

namespace {

// Row `k` of the table: the k-th of DiseaseParameters::all(), described by `info`; its default
// is GradABM's value, as a scenario that leaves "parameters" out gets it (8 age groups, one
// layer, the default stages): one number when every entry is the same.
tune::Tunable<DiseaseParameters> row(std::size_t k, tune::TunableInfo info) {
  DiseaseModel defaults;
  defaults.settings.days = 7;
  defaults.reset(8, 1);
  const std::span<const double> v = defaults.parameters.all()[k]->values();
  const bool uniform = std::all_of(v.begin(), v.end(), [&](double e) { return e == v.front(); });
  info.default_value =
      uniform ? tune::TunableDefault::number(v.front()) : tune::TunableDefault::list(std::vector<double>(v.begin(), v.end()));
  return {std::move(info), [k](DiseaseParameters& p) { return tune::array_storage(*p.all()[k], 1); }};
}

}  // namespace

const tune::TunableTable<DiseaseParameters>& epidemic_tunables() {
  // In the order of DiseaseParameters::all().
  static const tune::TunableTable<DiseaseParameters> table = {
      row(0, {"reproduction", "1", "week", "R: transmission scale of the hazard, per week (GradABM's R)"}),
      row(1, {"mortality", "1", "model", "probability that an infected agent dies when leaving infection"}),
      row(2, {"initial_infected", "1", "model", "share of agents infected on day 0"}),
      row(3, {"susceptibility", "1", "age group", "S: susceptibility multiplier of an age group"}),
      row(4, {"infectiousness", "1", "stage", "A: infectiousness of the exposed and the infectious stage"}),
      row(5, {"profile", "1", "day since infection", "g: infectiousness by day since infection (Gamma increments)"}),
      row(6, {"contact_reduction", "1", "layer", "share of a layer's contacts removed from the intervention day on"}),
      row(7, {"vaccination_rate", "1/day", "model", "share of agents protected per day from the vaccination day on"}),
      row(8, {"reporting", "1", "model", "share of counted events recorded in the data"}),
      row(9, {"ascertainment", "1", "model",
              "share of cases recorded in the data, for series scaled by it (cases and deaths fitted jointly)"}),
  };
  return table;
}

Array<1>& quantity(DiseaseParameters& parameters, std::string_view name) {
  const auto& table = epidemic_tunables();
  for (std::size_t k = 0; k < table.size(); ++k)
    if (table[k].info.name == name) return *parameters.all()[k];
  throw std::invalid_argument("unknown epidemic parameter \"" + std::string(name) + "\"");
}

}  // namespace simgrad::contagion
