// The agent-based epidemic as a differentiable system (GradABM's model, gradients through time).
//
// State, per agent: [x (agents), tau (agents), m (agents x H)]. x is the agent's susceptible
// occupancy; m[d mod H] its occupancy infected on day d, for the last H = history_days() days;
// tau the day of its (hard) infection, not differentiated; while susceptible, tau = -1 - d < 0,
// where d is the last day whose slot was written by an infection event (0: none since day 0's
// seeding; after waning immunity, the day of the infection). A slot is live, carries a derivative, when an event wrote it; the others are
// constant zeros, and the adjoint skips agents whose recent slots are all constant. Straight-
// through, x and m are 0 or 1 in value and carry the derivative of every relaxed event: an
// infection event on day t moves x z from x into m[t + 1], and when the agent escapes (z = 0)
// that slot is 0 in value but still carries dz, so a near-miss counts, sheds and infects in the
// gradient on the days it would have (the occupancy crosses days; d(deaths on day 60)/d(R in
// week 1) is not zero, and does not only follow realised infections).
//
// A step (day t) is an explicit list of stages:
//   1. shedding     per agent: c_j = sum over k < removal of m_j[t - k] A[stage k] g[k]
//   2. infection    per agent: H_i = sum over active contacts of weight(layer, t) c_j, a gather
//                   over the CSR row in a fixed order (a contact is active on a day by its own
//                   draw when a layer's active share is below 1); lambda_i = R_t S[age] / Ibar[age] H_i,
//                   p_i = (1 - V_t)(1 - exp(-lambda_i)), sampled as an Event (transition.hpp);
//                   x -= x z, m[t + 1] = x z; waning immunity sends recovered agents back.
// The step's residual is H (the adjoint replays the hazard sums where the rollout keeps none).
// The adjoint is hand-written: infection's adjoint per agent (H-bar), then shedding's as a
// gather of H-bar over the same rows (the contacts are symmetric).
// Parameter adjoints are summed per block of agents, then per group of blocks and over groups in
// order (core/subdomain.hpp): the same bits for any thread count.
//
// Split over processes, a system runs one part of the population (Population::part_of) with
// the subdomain that says where the others are: the same stages on its own agents, with two
// exchanges a day, each a copy of the owners' values for the ghosts the part's rows name: c
// after shedding, H-bar after infection's adjoint (the contacts are symmetric: the agents whose
// c a part reads are those whose H-bar it reads). Draws are keyed by the agent's number in the
// whole population, and sums over agents are the subdomain's fixed-order sums (core/subdomain.hpp), so every process
// holds the loss and parameter gradient of the whole model, the same bits as one process.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "core/subdomain.hpp"
#include "core/system.hpp"
#include "sims/contagion/disease_model.hpp"
#include "sims/contagion/population.hpp"

namespace simgrad::contagion {

class Epidemic : public System {
 public:
  // Both must outlive the system; the model's parameters may change between rollouts. A part of
  // a split population needs its subdomain (which must outlive the system too).
  Epidemic(const Population& population, DiseaseModel& model, const Subdomain* subdomain = nullptr);

  Index state_size() const override { return (2 + history_) * population_.agents; }
  Index residual_size() const override { return population_.agents; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;
  // A day changes the state of few agents (those infected, escaping, or losing immunity) and one
  // history slot: the record of a day holds their earlier values and hazard sums.
  bool records_steps() const override { return record_steps_; }
  void step_recorded(int t, std::span<double> state) override;
  void undo_step(int t, std::span<double> state, std::span<double> residual) override;
  void clear_records() override;
  std::size_t record_bytes() const override;
  // false: `all` keeps whole states (a reference for the records, which must give the same bits).
  void record_steps(bool record) { record_steps_ = record; }

  const Population& population() const { return population_; }
  // The split this system's population is a part of (null: the whole population).
  const Subdomain* subdomain() const override { return subdomain_; }
  const ProcessSplit* split() const override { return subdomain_; }
  DiseaseModel& model() { return model_; }
  const DiseaseModel& model() const { return model_; }
  // The uniform draw of agent i's infection on day t, of its seeding, and of its death (i: an
  // agent of this system's population; the draws are keyed by its number in the whole one).
  double infection_draw(int t, Index i) const;
  double seeding_draw(Index i) const;
  double death_draw(int infection_day, Index i) const;
  // Whether the contact of agents i and j in layer l is active on day t (the same for j and i).
  bool contact_active(int t, Index i, Index j, int layer) const {
    return contact_drawn(t, i, j, model_.active_share_on(layer, t));
  }
  // Whether an agent infected on day tau dies (its hard death event).
  bool dies(double tau, Index i) const;
  // The last day whose slot an event wrote, for an agent with tau (see the state above).
  static int last_live_day(double tau) { return tau >= 0.0 ? static_cast<int>(tau) : static_cast<int>(-tau) - 1; }
  // false: the adjoint visits every agent's contacts, even those whose recent slots are all
  // constant (a reference for the skip, which must give the same bits).
  void skip_dead_history(bool skip) { skip_dead_history_ = skip; }
  bool skips_dead_history() const { return skip_dead_history_; }
  // Days of history in a state (H), and where agent i's occupancy infected on day d lies in it.
  int history() const { return history_; }
  std::size_t slot(Index i, int day) const { return history_start(i) + day_offset(day); }
  // The same in two parts, for loops over agents that take the day's offset (a division) once.
  std::size_t history_start(Index i) const { return static_cast<std::size_t>(2 * population_.agents + i * history_); }
  std::size_t day_offset(int day) const { return static_cast<std::size_t>(day % history_); }

 private:
  // The step, recording the day when Record (step_recorded).
  template <bool Record>
  void advance(int t, std::span<const double> state, std::span<double> next, std::span<double> residual);
  // Stage 1: shedding c of every agent on day t.
  void shed(int t, std::span<const double> state);
  // Agent i's shedding on day t, from the table refresh_shedding_table() left.
  double shedding_of(Index i, int t, std::span<const double> state) const {
    const int removal = model_.settings.removal_day();
    const double* table = shedding_table_.data();
    double c = 0.0;
    if (model_.settings.straight_through) {
      // Straight-through, only the day of the agent's realised infection holds a non-zero
      // occupancy: one term gives the same value (and bits) as the whole sum.
      const double tau = state[static_cast<std::size_t>(population_.agents + i)];
      const int k = tau >= 0.0 ? t - static_cast<int>(tau) : removal;
      if (k < removal) c = state[slot(i, t - k)] * table[k];
    } else {
      for (int k = 0, recent = std::min(removal, t + 1); k < recent; ++k) c += state[slot(i, t - k)] * table[k];
    }
    return c;
  }
  // Split: the ghosts' values from their owners, and their bits of `mask` (value != 0).
  void fill_ghosts(std::vector<double>& values, std::vector<std::uint64_t>& mask) const;
  // Packs the non-zero H-bar (pack_hazard_adjoints) for the gather of shedding's adjoint.
  void pack_hazard_adjoints();
  // A[stage] g[k] for every day since infection k, from the model's parameters.
  void refresh_shedding_table();
  // The weighted sum of c over agent i's active contacts on day t.
  double hazard_sum(Index i) const;
  // Whether the contact of agents i and j in layer l is active on the day set_layer_weights set.
  bool active_today(Index i, Index j, std::size_t l) const { return contact_drawn(day_, i, j, active_share_[l]); }
  // Whether the contact of agents i and j is active on day t when a share `share` of its layer is.
  bool contact_drawn(int t, Index i, Index j, double share) const;
  // Whether an agent infected on day tau is susceptible again at the end of day t.
  bool wanes(int t, double tau, Index i) const;
  void set_layer_weights(int t);

  const Population& population_;
  DiseaseModel& model_;
  const Subdomain* subdomain_;
  std::vector<double> shedding_;       // c, per agent (and ghost)
  std::vector<std::uint64_t> shedding_mask_;  // bit per agent: c != 0 (fits in cache: the gather
                                               // reads c only for the few agents that shed)
  std::vector<std::uint64_t> adjoint_mask_;   // bit per agent: H-bar != 0, likewise
  int history_;
  std::vector<double> hazard_adjoint_; // H-bar, per agent (and ghost)
  std::vector<double> packed_adjoint_; // the non-zero H-bar, in agent order
  std::vector<std::uint32_t> adjoint_rank_;  // per word of adjoint_mask_: set bits before it
  std::vector<double> layer_weight_;   // this day's weight per layer
  std::vector<double> active_share_;   // this day's share of active contacts per layer
  bool masking_ = false;               // this day, some layer has contacts off
  int day_ = 0;                        // the day set_layer_weights last set
  bool skip_dead_history_ = true;
  std::vector<double> shedding_table_; // A[stage] g[k] per day since infection k (+ a trailing 0)
  BlockSums partials_;                 // per block: parameter adjoint partial sums
  double total_shedding_ = 0.0;        // complete populations: sum of c
  double total_hazard_adjoint_ = 0.0;  // complete populations: sum of H-bar

  // Day records, per block of agents (blocks record in parallel, and undo in parallel). An agent
  // whose x, tau or hazard sum is not that of a day without change is kept with its earlier x
  // and tau and the day's hazard sum; a history slot whose value changed, with its earlier value.
  struct AgentRecord {
    std::int32_t agent;
    double x, tau, hazard;
  };
  struct SlotRecord {
    std::int32_t agent;
    double value;
  };
  struct BlockRecords {
    std::vector<AgentRecord> agents;
    std::vector<SlotRecord> slots;
    std::vector<std::size_t> agent_starts, slot_starts;  // where each recorded day's entries start
  };
  std::vector<BlockRecords> records_;
  std::vector<int> recorded_days_;
  std::size_t record_peak_bytes_ = 0;
  bool record_steps_ = true;
};

}  // namespace simgrad::contagion
