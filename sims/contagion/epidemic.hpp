// The agent-based epidemic as a differentiable system (GradABM's model, gradients through time).
//
// State: [y (agents), tau (agents)]. tau is the day an agent was infected (-1: susceptible),
// hard and not differentiated; y is the agent's straight-through infection value: 0 or 1 in
// value, with the derivative of every relaxed event that led to it, so the gradient crosses
// days (an agent infected on day 40 carries d/dR of the neighbours who infected it, and so on
// back to day 0). Its susceptibility is 1 - y.
//
// A step (day t) is an explicit list of stages:
//   1. shedding     per agent: c_j = y_j A[stage] g[t - tau_j] (0 unless exposed or infectious)
//   2. infection    per agent: H_i = sum over contacts of weight(layer, t) c_j, a gather over
//                   the CSR row in a fixed order; lambda_i = R_t S[age] / Ibar[age] H_i,
//                   p_i = (1 - V_t)(1 - exp(-lambda_i)), sampled as an Event (transition.hpp);
//                   waning immunity sends recovered agents back to susceptible.
// The adjoint is hand-written: infection's adjoint per agent (H-bar), then shedding's as a
// gather of H-bar over the same rows (the contacts are symmetric), only for shedding agents.
// Straight-through, a susceptible agent's y-bar is zero until the day it is infected (its
// later values do not depend on days it escaped), so infection's adjoint does real work, and
// replays the agent's hazard sum, about once per infected agent: the step keeps no residual.
// Parameter adjoints are summed per block of agents and then in block order: the same bits for
// any thread count.
#pragma once

#include <span>
#include <vector>

#include "core/system.hpp"
#include "sims/contagion/disease_model.hpp"
#include "sims/contagion/population.hpp"

namespace simgrad::contagion {

class Epidemic : public System {
 public:
  // Both must outlive the system; the model's parameters may change between rollouts.
  Epidemic(const Population& population, DiseaseModel& model);

  Index state_size() const override { return 2 * population_.agents; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  const Population& population() const { return population_; }
  DiseaseModel& model() { return model_; }
  const DiseaseModel& model() const { return model_; }
  // The uniform draw of agent i's infection on day t, of its seeding, and of its death.
  double infection_draw(int t, Index i) const;
  double seeding_draw(Index i) const;
  double death_draw(int infection_day, Index i) const;
  // Whether an agent infected on day tau dies (its hard death event).
  bool dies(double tau, Index i) const;

 private:
  // Stage 1: shedding c of every agent on day t.
  void shed(int t, const double* y, const double* tau);
  // The weighted sum of c over agent i's contacts on day t.
  double hazard_sum(Index i) const;
  // Whether an agent infected on day tau is susceptible again at the end of day t.
  bool wanes(int t, double tau, Index i) const;
  void set_layer_weights(int t);

  const Population& population_;
  DiseaseModel& model_;
  std::vector<double> shedding_;       // c, per agent
  std::vector<std::uint64_t> shedding_mask_;  // bit per agent: c != 0 (fits in cache: the gather
                                               // reads c only for the few agents that shed)
  std::vector<double> hazard_adjoint_; // H-bar, per agent
  std::vector<double> layer_weight_;   // this day's weight per layer
  std::vector<double> shedding_table_; // A[stage] g[k] per day since infection k (+ a trailing 0)
  std::vector<double> partials_;       // per block: parameter adjoint partial sums
  double total_shedding_ = 0.0;        // complete populations: sum of c
  double total_hazard_adjoint_ = 0.0;  // complete populations: sum of H-bar
};

}  // namespace simgrad::contagion
