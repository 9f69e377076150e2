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

// Which tuned share of the model's counts a series records.
enum class Share {
  kReporting,      // the reporting share (1 unless tuned)
  kAscertainment,  // the ascertainment share: cases fitted next to deaths, which are nearly all recorded
};

// One observed series.
struct Series {
  Count count = Count::kDeaths;
  std::vector<Observation> observations;
  double weight = 1.0;  // per observation
  // Days from the counted event (death, entering the infectious stage) to its record in the data:
  // the window ending on day t holds the events of the window ending on day t - delay.
  int delay = 0;
  Share share = Share::kReporting;
};

// The tuned share that scales a series' counts.
inline Array<1>& share_of(DiseaseParameters& parameters, Share share) {
  return share == Share::kReporting ? parameters.reporting : parameters.ascertainment;
}

// A penalty on the roughness of the weekly R curve: weight x the sum of squared differences of
// order 1 or 2 of log R over its first `weeks` entries (0: all). R is multiplicative, so a curve
// with no second differences in log R is the exponential trend that the trend rule continues.
struct ReproductionSmoothness {
  double weight = 0.0;
  int order = 2;
  int weeks = 0;
};

// The penalty of the smoothness on these values of R; with add_adjoint, seed x its gradient is
// added to the quantity's adjoint.
double reproduction_roughness(const ReproductionSmoothness& smoothness, Array<1>& reproduction, bool add_adjoint,
                              double seed);

// The model's count of `count` in the window ending on day t - delay, from the state of day t
// (not yet scaled by the reporting share).
double model_count(const Epidemic& system, Count count, int t, int window, std::span<const double> state, int delay = 0);
// Adds seed x d(count)/d(state) to state_adjoint, and seed x d(count)/d(mortality) to the model.
void model_count_adjoint(Epidemic& system, Count count, int t, int window, std::span<const double> state, double seed,
                         std::span<double> state_adjoint, int delay = 0);

// f on the chosen scale, and its derivative.
double scaled(Scale scale, double x);
double scaled_slope(Scale scale, double x);

// The terms of observed series, and a smoothness penalty on R as a term of day 0; a subclass
// says how a state counts.
class SeriesLoss : public TrajectoryLoss {
 public:
  // A series' counts are scaled by its share of `parameters` (reporting or ascertainment); the
  // penalty reads their R.
  SeriesLoss(std::vector<Series> series, Scale scale, DiseaseParameters& parameters);

  void set_smoothness(const ReproductionSmoothness& smoothness) { smoothness_ = smoothness; }

  bool has_term(int t, int steps) const final;
  double term(int t, std::span<const double> state) final;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) final;

  const std::vector<Series>& series() const { return series_; }

 protected:
  // The count in the window ending on day t - delay, read from the state of day t, and seed x
  // its derivative added to state_adjoint (and to parameters the count depends on).
  virtual double count(Count count, int t, int window, int delay, std::span<const double> state) = 0;
  virtual void count_adjoint(Count count, int t, int window, int delay, std::span<const double> state, double seed,
                             std::span<double> state_adjoint) = 0;

 private:
  std::vector<Series> series_;
  Scale scale_;
  DiseaseParameters& parameters_;
  ReproductionSmoothness smoothness_;
};

// Series of the agent model.
class CountLoss final : public SeriesLoss {
 public:
  CountLoss(Epidemic& system, std::vector<Series> series, Scale scale);

 private:
  double count(Count count, int t, int window, int delay, std::span<const double> state) override;
  void count_adjoint(Count count, int t, int window, int delay, std::span<const double> state, double seed,
                     std::span<double> state_adjoint) override;
  Epidemic& system_;
};

}  // namespace simgrad::contagion
