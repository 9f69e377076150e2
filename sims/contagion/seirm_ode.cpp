#include "sims/contagion/seirm_ode.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace simgrad::contagion {

namespace {
enum Slot { kS = 0, kE, kI, kR, kM, kDeaths, kCases = kDeaths + SeirmOde::kHistory };
}

void SeirmModel::reset(int days, double reproduction, double mortality, double initial_infected) {
  parameters.reproduction.resize((days + 6) / 7 + 1, true, reproduction);
  parameters.mortality.resize(1, true, mortality);
  parameters.initial_infected.resize(1, true, initial_infected);
  parameters.reporting.resize(1, true, 1.0);
  parameters.ascertainment.resize(1, true, 1.0);
}

double SeirmOde::reproduction_on(int t) const {
  const std::span<const double> r = model_.parameters.reproduction.values();
  return r[std::min(static_cast<std::size_t>(t / 7), r.size() - 1)];
}

void SeirmOde::initial_state(std::span<double> s) {
  std::fill(s.begin(), s.end(), 0.0);
  const double e0 = model_.parameters.initial_infected.values()[0] * model_.population;
  s[kS] = model_.population - e0;
  s[kE] = e0;
}

void SeirmOde::initial_state_adjoint(std::span<const double> a) {
  model_.parameters.initial_infected.adjoints()[0] += (a[kE] - a[kS]) * model_.population;
}

void SeirmOde::step(int t, std::span<const double> s, std::span<double> n, std::span<double>) {
  const double alpha = 1.0 / model_.exposed_days, gamma = 1.0 / model_.infectious_days;
  const double beta = reproduction_on(t) * gamma, m = model_.parameters.mortality.values()[0], pop = model_.population;
  const double infections = beta * s[kS] * s[kI] / pop;
  n[kS] = s[kS] - infections;
  n[kE] = s[kE] + infections - alpha * s[kE];
  n[kI] = s[kI] + alpha * s[kE] - gamma * s[kI];
  n[kR] = s[kR] + (1.0 - m) * gamma * s[kI];
  n[kM] = s[kM] + m * gamma * s[kI];
  for (int k = kHistory - 1; k > 0; --k) {
    n[kDeaths + k] = s[kDeaths + k - 1];
    n[kCases + k] = s[kCases + k - 1];
  }
  n[kDeaths] = m * gamma * s[kI];
  n[kCases] = alpha * s[kE];
}

void SeirmOde::step_adjoint(int t, std::span<const double> s, std::span<const double>, std::span<const double> b,
                            std::span<double> a) {
  const double alpha = 1.0 / model_.exposed_days, gamma = 1.0 / model_.infectious_days;
  const double r = reproduction_on(t), beta = r * gamma, m = model_.parameters.mortality.values()[0];
  const double pop = model_.population;
  const double infections_bar = -b[kS] + b[kE];
  a[kS] += b[kS] + infections_bar * beta * s[kI] / pop;
  a[kE] += b[kE] * (1.0 - alpha) + b[kI] * alpha + b[kCases] * alpha;
  a[kI] += b[kI] * (1.0 - gamma) + b[kR] * (1.0 - m) * gamma + (b[kM] + b[kDeaths]) * m * gamma +
           infections_bar * beta * s[kS] / pop;
  a[kR] += b[kR];
  a[kM] += b[kM];
  for (int k = 1; k < kHistory; ++k) {
    a[kDeaths + k - 1] += b[kDeaths + k];
    a[kCases + k - 1] += b[kCases + k];
  }
  model_.parameters.mortality.adjoints()[0] += (-b[kR] + b[kM] + b[kDeaths]) * gamma * s[kI];
  const std::span<const double> rv = model_.parameters.reproduction.values();
  model_.parameters.reproduction.adjoints()[std::min(static_cast<std::size_t>(t / 7), rv.size() - 1)] +=
      infections_bar * s[kS] * s[kI] / pop * gamma;
}

void SeirmOde::clear_adjoints() {
  for (Array<1>* q : model_.parameters.all()) std::fill(q->adjoints().begin(), q->adjoints().end(), 0.0);
}

double SeirmOde::count(Count count, int window, int delay, std::span<const double> s) {
  if (count == Count::kInfectious) return s[kI];
  if (count == Count::kInfections) throw std::invalid_argument("the SEIRM model counts deaths, cases and infectious");
  const int first = (count == Count::kDeaths ? kDeaths : kCases) + delay;
  double total = 0.0;
  for (int k = 0; k < std::min(window, kHistory - delay); ++k) total += s[static_cast<std::size_t>(first + k)];
  return total;
}

void SeirmOde::count_adjoint(Count count, int window, int delay, double seed, std::span<double> a) {
  if (count == Count::kInfectious) {
    a[kI] += seed;
    return;
  }
  const int first = (count == Count::kDeaths ? kDeaths : kCases) + delay;
  for (int k = 0; k < std::min(window, kHistory - delay); ++k) a[static_cast<std::size_t>(first + k)] += seed;
}

SeirmCountLoss::SeirmCountLoss(SeirmOde& system, std::vector<Series> series, Scale scale)
    : SeriesLoss(std::move(series), scale, system.model().parameters) {
  for (const Series& s : this->series()) {
    if (s.delay > 0 && s.count == Count::kInfectious)
      throw std::invalid_argument("the SEIRM model counts the infectious without a delay");
    for (const Observation& o : s.observations)
      if (s.delay < 0 || o.window + s.delay > SeirmOde::kHistory)
        throw std::invalid_argument("the SEIRM model counts windows that end at most " +
                                    std::to_string(SeirmOde::kHistory) + " days back, window and delay included");
  }
}

double SeirmCountLoss::count(Count count, int, int window, int delay, std::span<const double> state) {
  return SeirmOde::count(count, window, delay, state);
}

void SeirmCountLoss::count_adjoint(Count count, int, int window, int delay, std::span<const double>, double seed,
                                   std::span<double> state_adjoint) {
  SeirmOde::count_adjoint(count, window, delay, seed, state_adjoint);
}

}  // namespace simgrad::contagion
