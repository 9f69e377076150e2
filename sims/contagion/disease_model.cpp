#include "sims/contagion/disease_model.hpp"

#include <algorithm>

#include "sims/contagion/infectiousness.hpp"

namespace simgrad::contagion {

void DiseaseModel::reset(int age_groups, int layers) {
  DiseaseParameters& p = parameters;
  p.reproduction.resize((settings.days + 6) / 7 + 1, true, 5.02);
  p.mortality.resize(1, true, 0.02);
  p.initial_infected.resize(1, true, 0.005);
  const std::vector<double> s = {0.35, 0.69, 1.03, 1.03, 1.03, 1.03, 1.27, 1.52};
  p.susceptibility.resize(age_groups, true, 1.0);
  for (std::size_t a = 0; a < p.susceptibility.values().size() && a < s.size() && age_groups == 8; ++a)
    p.susceptibility.values()[a] = s[a];
  p.infectiousness.resize(2, true, 0.72);
  p.infectiousness.values()[0] = 0.33;
  p.profile.assign(gamma_profile(5.5, 2.14, settings.removal_day()), true);
  p.contact_reduction.resize(layers, true, 0.0);
  p.vaccination_rate.resize(1, true, 0.0);
  p.reporting.resize(1, true, 1.0);
  p.ascertainment.resize(1, true, 1.0);
  if (static_cast<int>(settings.layer_weight.size()) < layers) settings.layer_weight.resize(static_cast<std::size_t>(layers), 1.0);
  if (static_cast<int>(settings.mean_interactions.size()) < age_groups)
    settings.mean_interactions.resize(static_cast<std::size_t>(age_groups), 1.0);
}

double DiseaseModel::protected_share(int t, double* d_rate) const {
  const double days = t - settings.vaccination_start + 1;
  const double rate = parameters.vaccination_rate.values()[0];
  if (days <= 0.0 || rate * days >= 1.0) {
    if (d_rate) *d_rate = 0.0;
    return days <= 0.0 ? 0.0 : 1.0;
  }
  if (d_rate) *d_rate = days;
  return rate * days;
}

double DiseaseModel::contact_weight(int layer, int t) const {
  const double w = settings.layer_weight[static_cast<std::size_t>(layer)];
  return t >= settings.reduction_start ? w * (1.0 - parameters.contact_reduction.values()[static_cast<std::size_t>(layer)]) : w;
}

double DiseaseModel::shedding(int k) const {
  if (k < 0 || k >= settings.removal_day()) return 0.0;
  const double a = parameters.infectiousness.values()[k < settings.exposed_days ? 0 : 1];
  return a * parameters.profile.values()[static_cast<std::size_t>(k)];
}

}  // namespace simgrad::contagion
