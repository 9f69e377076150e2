// The SEIRM compartmental model (the baseline GradABM compares against): susceptible, exposed,
// infectious, recovered and dead counts in a population of N, one Euler step per day, with R
// per week. A one-element system with a hand-written adjoint, so the same tuners fit it.
//
// State: [S, E, I, R, M, deaths of the last 28 days, cases of the last 28 days] (newest first),
// so that daily and weekly counts, also recorded a few days late, are read from one state, as for
// the agent model.
#pragma once

#include <span>
#include <vector>

#include "core/system.hpp"
#include "sims/contagion/disease_model.hpp"
#include "sims/contagion/losses.hpp"

namespace simgrad::contagion {

struct SeirmModel {
  double population = 1e5;
  double exposed_days = 3.0;     // mean: E leaves at rate 1 / exposed_days
  double infectious_days = 5.0;  // mean: I leaves at rate 1 / infectious_days
  // reproduction (R0 per week), mortality, initial_infected (share exposed on day 0), reporting;
  // the other quantities are unused.
  DiseaseParameters parameters;

  // Sizes the parameters for `days` days, with the given starting values.
  void reset(int days, double reproduction, double mortality, double initial_infected);
};

class SeirmOde : public System {
 public:
  static constexpr int kHistory = 28;
  static constexpr Index kSize = 5 + 2 * kHistory;

  explicit SeirmOde(SeirmModel& model) : model_(model) {}

  Index state_size() const override { return kSize; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  SeirmModel& model() { return model_; }
  // The count in the window ending `delay` days before the state's day (window + delay <= kHistory;
  // kDeaths, kCases, and kInfectious without a delay).
  static double count(Count count, int window, int delay, std::span<const double> state);
  // Adds seed x d(count)/d(state) to state_adjoint.
  static void count_adjoint(Count count, int window, int delay, double seed, std::span<double> state_adjoint);

 private:
  double reproduction_on(int t) const;
  SeirmModel& model_;
};

// Series of the SEIRM model.
class SeirmCountLoss final : public SeriesLoss {
 public:
  SeirmCountLoss(SeirmOde& system, std::vector<Series> series, Scale scale);

 private:
  double count(Count count, int t, int window, int delay, std::span<const double> state) override;
  void count_adjoint(Count count, int t, int window, int delay, std::span<const double> state, double seed,
                     std::span<double> state_adjoint) override;
};

}  // namespace simgrad::contagion
