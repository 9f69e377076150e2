// Losses against observed counts (deaths, cases, infections, prevalence), read from the state.
//
// An observation is a count over a window of days ending on its day: the state at that day's
// end knows every agent's infection day, so daily and weekly counts are both terms of that one
// state. A term is weight x (f(reporting x model count) - f(observed))^2 with f a variance-
// stabilising scale (sqrt(x + 1) by default: counts of deaths are Poisson-like).
#pragma once

#include <span>
#include <vector>

#include "core/system.hpp"
#include "sims/contagion/epidemic.hpp"

namespace simgrad::contagion {

struct Observation {
  int day = 0;     // the window's last day: the term belongs to the state of that day
  int window = 1;  // days counted: (day - window, day]
  double value = 0.0;
};

enum class Scale { kLinear, kSqrt, kLog };

// One observed series.
struct Series {
  Count count = Count::kDeaths;
  std::vector<Observation> observations;
  double weight = 1.0;  // per observation
};

// The model's count of `count` in the window ending on day t, from the state of day t (not yet
// scaled by the reporting share).
double model_count(const Epidemic& system, Count count, int t, int window, std::span<const double> state);
// Adds seed x d(count)/d(state) to state_adjoint, and seed x d(count)/d(mortality) to the model.
void model_count_adjoint(Epidemic& system, Count count, int t, int window, std::span<const double> state, double seed,
                         std::span<double> state_adjoint);

// f on the chosen scale, and its derivative.
double scaled(Scale scale, double x);
double scaled_slope(Scale scale, double x);

// The terms of observed series; a subclass says how a state counts.
class SeriesLoss : public TrajectoryLoss {
 public:
  // `reporting` scales every count (a tuned share, or 1).
  SeriesLoss(std::vector<Series> series, Scale scale, Quantity& reporting);

  bool has_term(int t, int steps) const final;
  double term(int t, std::span<const double> state) final;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) final;

  const std::vector<Series>& series() const { return series_; }

 protected:
  // The count in the window ending on day t, and seed x its derivative added to state_adjoint
  // (and to parameters the count depends on).
  virtual double count(Count count, int t, int window, std::span<const double> state) = 0;
  virtual void count_adjoint(Count count, int t, int window, std::span<const double> state, double seed,
                             std::span<double> state_adjoint) = 0;

 private:
  std::vector<Series> series_;
  Scale scale_;
  Quantity& reporting_;
};

// Series of the agent model.
class CountLoss final : public SeriesLoss {
 public:
  CountLoss(Epidemic& system, std::vector<Series> series, Scale scale);

 private:
  double count(Count count, int t, int window, std::span<const double> state) override;
  void count_adjoint(Count count, int t, int window, std::span<const double> state, double seed,
                     std::span<double> state_adjoint) override;
  Epidemic& system_;
};

}  // namespace simgrad::contagion
