#include "sims/contagion/losses.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/parallel.hpp"
#include "core/subdomain.hpp"
#include "sims/contagion/transition.hpp"

namespace simgrad::contagion {

namespace {

// The infection days whose occupancy a count on day t over `window` days reads: [first, last].
struct DayRange {
  int first, last;
};

DayRange days_counted(const DiseaseSettings& s, Count count, int t, int window) {
  switch (count) {
    case Count::kInfections: return {t - window + 1, t};
    case Count::kCases: return {t - window + 1 - s.exposed_days, t - s.exposed_days};
    case Count::kInfectious: return {t - s.removal_day() + 1, t - s.exposed_days};
    case Count::kDeaths: return {t - window + 1 - s.removal_day(), t - s.removal_day()};
  }
  return {0, -1};
}

// The days counted by the state of day t, clipped to day 0; an error when the states' history
// does not reach back.
DayRange checked_days(const Epidemic& system, Count count, int t, int window, int delay) {
  DayRange r = days_counted(system.model().settings, count, t - delay, window);
  if (r.first <= t - system.history())
    throw std::invalid_argument("a count over " + std::to_string(window) + " days recorded " + std::to_string(delay) +
                                " days late reaches back further than the agents' history; raise count_window");
  r.first = std::max(r.first, 0);
  return r;
}

// An agent's share of a death on infection day d, and its derivative by the mortality.
Event death_share(const Epidemic& system, int d, Index i) {
  const DiseaseSettings& s = system.model().settings;
  const double mortality = system.model().parameters.mortality.values()[0];
  if (!s.sampled_deaths) return {mortality, mortality, 1.0};
  return sample_event(mortality, system.death_draw(d, i), s.sampler, s.temperature);
}

// Sum over the system's agents of f(i), per block and then in the subdomain's fixed order (over
// every process's agents when the population is split).
template <class F>
double ordered_sum(const Epidemic& system, const F& f) {
  const Index n = system.population().agents;
  BlockSums sums(n, 1, system.subdomain());
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double s = 0.0;
    for (Index i = first; i < last; ++i) s += f(i);
    *sums.block(b) = s;
  });
  sums.reduce(0, 1);
  return sums.total(0);
}

}  // namespace

double model_count(const Epidemic& system, Count count, int t, int window, std::span<const double> state, int delay) {
  const DayRange r = checked_days(system, count, t, window, delay);
  const bool hard = system.model().settings.straight_through;
  const std::size_t first_offset = system.day_offset(r.first), h = static_cast<std::size_t>(system.history());
  return ordered_sum(system, [&](Index i) {
    double total = 0.0;
    // The slots of the days in order, wrapping around the history (no division per agent).
    std::size_t k = system.history_start(i) + first_offset;
    const std::size_t wrap = system.history_start(i) + h;
    for (int d = r.first; d <= r.last; ++d, k = k + 1 == wrap ? k + 1 - h : k + 1) {
      const double m = state[k];
      if (m == 0.0) continue;  // also skips death draws of agents not infected that day
      total += count == Count::kDeaths ? m * death_share(system, d, i).value(hard) : m;
    }
    return total;
  });
}

void model_count_adjoint(Epidemic& system, Count count, int t, int window, std::span<const double> state, double seed,
                         std::span<double> state_adjoint, int delay) {
  const DayRange r = checked_days(system, count, t, window, delay);
  const bool hard = system.model().settings.straight_through;
  const Index n = system.population().agents;
  // Only where it saves death draws: a plain add costs less than the test.
  const bool skip = system.skips_dead_history() && count == Count::kDeaths && system.model().settings.sampled_deaths;
  const std::size_t first_offset = system.day_offset(r.first), h = static_cast<std::size_t>(system.history());
  const double mortality_bar = ordered_sum(system, [&](Index i) {
    double mortality_part = 0.0;
    std::size_t k = system.history_start(i) + first_offset;  // as in model_count
    const std::size_t wrap = system.history_start(i) + h;
    // Slots after the agent's last live day are constant zeros: their adjoints are dropped, and
    // they add nothing to the mortality's.
    const int last = skip ? std::min(r.last, Epidemic::last_live_day(state[static_cast<std::size_t>(n + i)])) : r.last;
    for (int d = r.first; d <= last; ++d, k = k + 1 == wrap ? k + 1 - h : k + 1) {
      if (count != Count::kDeaths) {
        state_adjoint[k] += seed;
        continue;
      }
      const Event e = death_share(system, d, i);
      state_adjoint[k] += seed * e.value(hard);
      mortality_part += seed * state[k] * e.slope;
    }
    return mortality_part;
  });
  system.model().parameters.mortality.adjoints()[0] += mortality_bar;
}

double scaled(Scale scale, double x) {
  switch (scale) {
    case Scale::kLinear: return x;
    case Scale::kSqrt: return std::sqrt(std::max(x, 0.0) + 1.0);
    case Scale::kLog: return std::log(std::max(x, 0.0) + 1.0);
  }
  return x;
}

double scaled_slope(Scale scale, double x) {
  switch (scale) {
    case Scale::kLinear: return 1.0;
    case Scale::kSqrt: return x < 0.0 ? 0.0 : 0.5 / std::sqrt(x + 1.0);
    case Scale::kLog: return x < 0.0 ? 0.0 : 1.0 / (x + 1.0);
  }
  return 1.0;
}

double reproduction_roughness(const ReproductionSmoothness& smoothness, Array<1>& reproduction, bool add_adjoint,
                              double seed) {
  const std::span<const double> r = reproduction.values();
  const std::span<double> r_bar = reproduction.adjoints();
  const std::size_t n = smoothness.weeks > 0 ? std::min(r.size(), static_cast<std::size_t>(smoothness.weeks)) : r.size();
  const std::size_t order = smoothness.order == 1 ? 1 : 2;
  // Difference k of order 1 is log r[k+1] - log r[k]; of order 2, log r[k+2] - 2 log r[k+1] + log r[k].
  const double coefficients[2][3] = {{-1.0, 1.0, 0.0}, {1.0, -2.0, 1.0}};
  const double* c = coefficients[order - 1];
  double sum = 0.0;
  for (std::size_t k = 0; k + order < n; ++k) {
    double d = 0.0;
    for (std::size_t j = 0; j <= order; ++j) d += c[j] * std::log(r[k + j]);
    sum += d * d;
    if (!add_adjoint) continue;
    for (std::size_t j = 0; j <= order; ++j)
      r_bar[k + j] += seed * smoothness.weight * 2.0 * d * c[j] / r[k + j];
  }
  return smoothness.weight * sum;
}

SeriesLoss::SeriesLoss(std::vector<Series> series, Scale scale, DiseaseParameters& parameters)
    : series_(std::move(series)), scale_(scale), parameters_(parameters) {}

bool SeriesLoss::has_term(int t, int steps) const {
  if (t == 0 && smoothness_.weight > 0.0) return true;
  if (t > steps) return false;
  for (const Series& s : series_)
    for (const Observation& o : s.observations)
      if (o.day == t) return true;
  return false;
}

double SeriesLoss::term(int t, std::span<const double> state) {
  double total = t == 0 && smoothness_.weight > 0.0 ? reproduction_roughness(smoothness_, parameters_.reproduction, false, 0.0) : 0.0;
  for (const Series& s : series_)
    for (const Observation& o : s.observations) {
      if (o.day != t) continue;
      const double rho = share_of(parameters_, s.share).values()[0];
      const double d = scaled(scale_, rho * count(s.count, t, o.window, s.delay, state)) - scaled(scale_, o.value);
      total += s.weight * d * d;
    }
  return total;
}

void SeriesLoss::term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  if (t == 0 && smoothness_.weight > 0.0) reproduction_roughness(smoothness_, parameters_.reproduction, true, seed);
  for (const Series& s : series_)
    for (const Observation& o : s.observations) {
      if (o.day != t) continue;
      Array<1>& share = share_of(parameters_, s.share);
      const double rho = share.values()[0];
      const double c = count(s.count, t, o.window, s.delay, state);
      const double d = scaled(scale_, rho * c) - scaled(scale_, o.value);
      const double bar = seed * s.weight * 2.0 * d * scaled_slope(scale_, rho * c);  // d term / d(rho count)
      share.adjoints()[0] += bar * c;
      count_adjoint(s.count, t, o.window, s.delay, state, bar * rho, state_adjoint);
    }
}

CountLoss::CountLoss(Epidemic& system, std::vector<Series> series, Scale scale)
    : SeriesLoss(std::move(series), scale, system.model().parameters), system_(system) {}

double CountLoss::count(Count count, int t, int window, int delay, std::span<const double> state) {
  return model_count(system_, count, t, window, state, delay);
}

void CountLoss::count_adjoint(Count count, int t, int window, int delay, std::span<const double> state, double seed,
                              std::span<double> state_adjoint) {
  model_count_adjoint(system_, count, t, window, state, seed, state_adjoint, delay);
}

}  // namespace simgrad::contagion
