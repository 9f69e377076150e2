#include "sims/contagion/losses.hpp"

#include <algorithm>
#include <cmath>

#include "core/parallel.hpp"
#include "sims/contagion/transition.hpp"

namespace simgrad::contagion {

namespace {

// Agent i's weight in the count (0 when outside it) and d(weight)/d(mortality), given y and tau.
struct Share {
  double value;
  double mortality_slope;
};

Share share_of(const Epidemic& system, Count count, int t, int window, double y, double tau, Index i) {
  if (tau < 0.0) return {0.0, 0.0};
  const DiseaseModel& m = system.model();
  const DiseaseSettings& s = m.settings;
  const int infected = static_cast<int>(tau);
  auto in_window = [&](int day) { return day > t - window && day <= t; };
  switch (count) {
    case Count::kInfections: return {in_window(infected) ? y : 0.0, 0.0};
    case Count::kCases: return {in_window(infected + s.exposed_days) ? y : 0.0, 0.0};
    case Count::kInfectious:
      return {t >= infected + s.exposed_days && t < infected + s.removal_day() ? y : 0.0, 0.0};
    case Count::kDeaths: {
      if (!in_window(infected + s.removal_day())) return {0.0, 0.0};
      const double mortality = m.parameters.mortality.value[0];
      if (!s.sampled_deaths) return {y * mortality, y};
      const Event ev = sample_event(mortality, system.death_draw(infected, i), s.sampler, s.temperature);
      return {y * ev.value(s.straight_through), y * ev.slope};
    }
  }
  return {0.0, 0.0};
}

// Sum over agents of f(i), per block and then in block order.
template <class F>
double ordered_sum(Index n, const F& f) {
  std::vector<double> sums(static_cast<std::size_t>(block_count(n)), 0.0);
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double s = 0.0;
    for (Index i = first; i < last; ++i) s += f(i);
    sums[static_cast<std::size_t>(b)] = s;
  });
  double total = 0.0;
  for (double s : sums) total += s;
  return total;
}

}  // namespace

double model_count(const Epidemic& system, Count count, int t, int window, std::span<const double> state) {
  const Index n = system.population().agents;
  return ordered_sum(n, [&](Index i) {
    return share_of(system, count, t, window, state[static_cast<std::size_t>(i)], state[static_cast<std::size_t>(n + i)], i).value;
  });
}

void model_count_adjoint(Epidemic& system, Count count, int t, int window, std::span<const double> state, double seed,
                         std::span<double> state_adjoint) {
  const Index n = system.population().agents;
  const double mortality_bar = ordered_sum(n, [&](Index i) {
    const double y = state[static_cast<std::size_t>(i)];
    // d share / d y is the share at y = 1 (every share is linear in y).
    const Share unit = share_of(system, count, t, window, 1.0, state[static_cast<std::size_t>(n + i)], i);
    state_adjoint[static_cast<std::size_t>(i)] += seed * unit.value;
    return seed * y * unit.mortality_slope;
  });
  system.model().parameters.mortality.adjoint[0] += mortality_bar;
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

SeriesLoss::SeriesLoss(std::vector<Series> series, Scale scale, Quantity& reporting)
    : series_(std::move(series)), scale_(scale), reporting_(reporting) {}

bool SeriesLoss::has_term(int t, int steps) const {
  if (t > steps) return false;
  for (const Series& s : series_)
    for (const Observation& o : s.observations)
      if (o.day == t) return true;
  return false;
}

double SeriesLoss::term(int t, std::span<const double> state) {
  const double rho = reporting_.value[0];
  double total = 0.0;
  for (const Series& s : series_)
    for (const Observation& o : s.observations) {
      if (o.day != t) continue;
      const double d = scaled(scale_, rho * count(s.count, t, o.window, state)) - scaled(scale_, o.value);
      total += s.weight * d * d;
    }
  return total;
}

void SeriesLoss::term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  const double rho = reporting_.value[0];
  for (const Series& s : series_)
    for (const Observation& o : s.observations) {
      if (o.day != t) continue;
      const double c = count(s.count, t, o.window, state);
      const double d = scaled(scale_, rho * c) - scaled(scale_, o.value);
      const double bar = seed * s.weight * 2.0 * d * scaled_slope(scale_, rho * c);  // d term / d(rho count)
      reporting_.adjoint[0] += bar * c;
      count_adjoint(s.count, t, o.window, state, bar * rho, state_adjoint);
    }
}

CountLoss::CountLoss(Epidemic& system, std::vector<Series> series, Scale scale)
    : SeriesLoss(std::move(series), scale, system.model().parameters.reporting), system_(system) {}

double CountLoss::count(Count count, int t, int window, std::span<const double> state) {
  return model_count(system_, count, t, window, state);
}

void CountLoss::count_adjoint(Count count, int t, int window, std::span<const double> state, double seed,
                              std::span<double> state_adjoint) {
  model_count_adjoint(system_, count, t, window, state, seed, state_adjoint);
}

}  // namespace simgrad::contagion
