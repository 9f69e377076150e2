#include "sims/contagion/epidemic.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "sims/contagion/hazard.hpp"
#include "sims/contagion/transition.hpp"

namespace simgrad::contagion {

namespace {

// Whether a and b are the same double, bit for bit.
bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// Layout of one block's parameter adjoint partials.
struct PartialLayout {
  std::size_t reproduction, susceptibility, vaccination, infectiousness, profile, reduction, seeding, size;
  PartialLayout(std::size_t ages, std::size_t days, std::size_t layers)
      : reproduction(0),
        susceptibility(1),
        vaccination(1 + ages),
        infectiousness(2 + ages),
        profile(4 + ages),
        reduction(4 + ages + days),
        seeding(4 + ages + days + layers),
        size(5 + ages + days + layers) {}
};

PartialLayout layout_of(const DiseaseModel& m) {
  return {m.parameters.susceptibility.values().size(), m.parameters.profile.values().size(),
          m.parameters.contact_reduction.values().size()};
}

// Adds the reduced partials at [offset, offset + count) to target, in the subdomain's order.
void flush(const BlockSums& partials, std::size_t offset, std::size_t count, double* target, double scale = 1.0) {
  partials.add_to(static_cast<Index>(offset), static_cast<Index>(count), target, scale);
}

}  // namespace

Epidemic::Epidemic(const Population& population, DiseaseModel& model, const Subdomain* subdomain)
    : population_(population),
      model_(model),
      subdomain_(subdomain),
      history_(model.settings.history_days()),
      partials_(population.agents, static_cast<Index>(layout_of(model).size), subdomain) {
  // Own agents and ghosts.
  const std::size_t n = static_cast<std::size_t>(population.agents) + population.ghosts.size();
  if (population.complete && population.total_agents() < 2) throw std::invalid_argument("a complete population needs two agents");
  if ((population.whole_agents > 0) != (subdomain != nullptr) ||
      (subdomain && (subdomain->first() != population.first_agent || subdomain->owned() != population.agents ||
                     subdomain->total() != population.whole_agents)))
    throw std::invalid_argument("an epidemic on a part of a population needs the subdomain of that part, and only then one");
  shedding_.assign(n, 0.0);
  shedding_mask_.assign((n + 63) / 64, 0);
  adjoint_mask_.assign((n + 63) / 64, 0);
  hazard_adjoint_.assign(n, 0.0);
  packed_adjoint_.assign(n, 0.0);
  adjoint_rank_.assign((n + 63) / 64, 0);
  layer_weight_.assign(static_cast<std::size_t>(population.layers), 1.0);
  active_share_.assign(static_cast<std::size_t>(population.layers), 1.0);
  for (const std::vector<double>& row : model.settings.active_share) {
    if (population.complete) throw std::invalid_argument("a complete population has no contacts to switch off (active_share)");
    if (row.size() < static_cast<std::size_t>(population.layers))
      throw std::invalid_argument("an active_share row has fewer entries than the population has layers");
    for (double v : row)
      if (!(v >= 0.0 && v <= 1.0)) throw std::invalid_argument("active_share entries must lie in [0, 1]");
  }
  shedding_table_.assign(static_cast<std::size_t>(model.settings.removal_day()) + 1, 0.0);
  if (model.parameters.susceptibility.values().size() < static_cast<std::size_t>(population.age_groups))
    throw std::invalid_argument("the model has fewer susceptibility entries than the population has age groups");
  if (model.parameters.contact_reduction.values().size() < static_cast<std::size_t>(population.layers))
    throw std::invalid_argument("the model has fewer contact layers than the population");
}

double Epidemic::infection_draw(int t, Index i) const {
  return event_draw(model_.settings.seed, static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(population_.first_agent + i),
                    kInfectionDraw);
}
double Epidemic::seeding_draw(Index i) const {
  return event_draw(model_.settings.seed, 0, static_cast<std::uint64_t>(population_.first_agent + i), kSeedingDraw);
}
double Epidemic::death_draw(int infection_day, Index i) const {
  return event_draw(model_.settings.seed, static_cast<std::uint64_t>(infection_day),
                    static_cast<std::uint64_t>(population_.first_agent + i), kDeathDraw);
}
bool Epidemic::dies(double tau, Index i) const {
  return death_draw(static_cast<int>(tau), i) < model_.parameters.mortality.values()[0];
}

bool Epidemic::wanes(int t, double tau, Index i) const {
  const DiseaseSettings& s = model_.settings;
  return s.immune_days > 0 && tau >= 0.0 && t + 1 - static_cast<int>(tau) == s.removal_day() + s.immune_days &&
         !dies(tau, i);
}

void Epidemic::initial_state(std::span<double> state) {
  const Index n = population_.agents;
  const double p = model_.parameters.initial_infected.values()[0];
  const DiseaseSettings& s = model_.settings;
  std::fill(state.begin(), state.end(), 0.0);
  parallel_for_blocks(n, [&](Index first, Index last) {
    for (Index i = first; i < last; ++i) {
      const Event ev = sample_event(p, seeding_draw(i), s.sampler, s.temperature);
      const double z = ev.value(s.straight_through);
      state[static_cast<std::size_t>(i)] = 1.0 - z;
      state[static_cast<std::size_t>(n + i)] = ev.hard > 0.0 ? 0.0 : -1.0;
      state[slot(i, 0)] = z;
    }
  });
}

void Epidemic::initial_state_adjoint(std::span<const double> state_adjoint) {
  const Index n = population_.agents;
  const double p = model_.parameters.initial_infected.values()[0];
  const DiseaseSettings& s = model_.settings;
  const PartialLayout layout = layout_of(model_);
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double sum = 0.0;
    for (Index i = first; i < last; ++i) {
      const double z_bar = state_adjoint[slot(i, 0)] - state_adjoint[static_cast<std::size_t>(i)];
      sum += z_bar * sample_event(p, seeding_draw(i), s.sampler, s.temperature).slope;
    }
    partials_.block(b)[layout.seeding] = sum;
  });
  partials_.reduce(static_cast<Index>(layout.seeding), 1);
  flush(partials_, layout.seeding, 1, model_.parameters.initial_infected.adjoints().data());
}

void Epidemic::set_layer_weights(int t) {
  day_ = t;
  masking_ = false;
  for (int l = 0; l < population_.layers; ++l) {
    layer_weight_[static_cast<std::size_t>(l)] = model_.contact_weight(l, t);
    active_share_[static_cast<std::size_t>(l)] = model_.active_share_on(l, t);
    masking_ = masking_ || active_share_[static_cast<std::size_t>(l)] < 1.0;
  }
}

bool Epidemic::contact_drawn(int t, Index i, Index j, double share) const {
  if (share >= 1.0) return true;
  // Keyed by the unordered pair of the whole population's agents, so both rows of a contact see
  // one draw, on whichever processes they lie.
  const Index a = population_.whole_index(i), b = population_.whole_index(j);
  const std::uint64_t pair = (static_cast<std::uint64_t>(std::min(a, b)) << 32) | static_cast<std::uint64_t>(std::max(a, b));
  return uniform01(model_.settings.seed, static_cast<std::uint64_t>(t), pair, kContactDraw) < share;
}

void Epidemic::refresh_shedding_table() {
  const int removal = model_.settings.removal_day();
  for (int k = 0; k <= removal; ++k) shedding_table_[static_cast<std::size_t>(k)] = model_.shedding(k);
}

void Epidemic::shed(int t, std::span<const double> state) {
  const Index n = population_.agents;
  // Blocks hold a whole number of mask words (kBlockSize is a multiple of 64), so no two threads
  // write one word.
  static_assert(kBlockSize % 64 == 0);
  refresh_shedding_table();
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double sum = 0.0;
    for (Index w = first / 64; w < (last + 63) / 64; ++w) shedding_mask_[static_cast<std::size_t>(w)] = 0;
    for (Index i = first; i < last; ++i) {
      const double c = shedding_of(i, t, state);
      shedding_[static_cast<std::size_t>(i)] = c;
      if (c != 0.0) shedding_mask_[static_cast<std::size_t>(i / 64)] |= std::uint64_t{1} << (i % 64);
      sum += c;
    }
    partials_.block(b)[0] = sum;
  });
  fill_ghosts(shedding_, shedding_mask_);
  if (population_.complete) {
    partials_.reduce(0, 1);
    total_shedding_ = partials_.total(0);
  }
}

void Epidemic::fill_ghosts(std::vector<double>& values, std::vector<std::uint64_t>& mask) const {
  if (!subdomain_) return;
  subdomain_->fill_ghosts(values);
  const Index all = population_.agents + static_cast<Index>(population_.ghosts.size());
  for (Index i = population_.agents; i < all; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << (i % 64);
    std::uint64_t& word = mask[static_cast<std::size_t>(i / 64)];
    word = values[static_cast<std::size_t>(i)] != 0.0 ? word | bit : word & ~bit;
  }
}

double Epidemic::hazard_sum(Index i) const {
  if (population_.complete)
    return layer_weight_[0] * (total_shedding_ - shedding_[static_cast<std::size_t>(i)]) /
           static_cast<double>(population_.total_agents() - 1);
  const std::int64_t first = population_.offsets[static_cast<std::size_t>(i)];
  const std::int64_t last = population_.offsets[static_cast<std::size_t>(i) + 1];
  const std::int32_t* nb = population_.neighbors.data();
  const std::uint64_t* mask = shedding_mask_.data();
  if (masking_) {
    double h = 0.0;
    for (std::int64_t e = first; e < last; ++e) {
      const std::size_t l = population_.layers == 1 ? 0 : population_.layer[static_cast<std::size_t>(e)];
      if (sheds_today(mask, nb[e]) && active_today(i, nb[e], l)) h += layer_weight_[l] * shedding_[static_cast<std::size_t>(nb[e])];
    }
    return h;
  }
  return contact_hazard(first, last, nb, population_.layers == 1 ? nullptr : population_.layer.data(),
                        layer_weight_.data(), shedding_.data(), mask);
}

void Epidemic::step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  advance<false>(t, state, next, residual);
}

void Epidemic::step_recorded(int t, std::span<double> state) {
  if (records_.empty()) records_.resize(static_cast<std::size_t>(block_count(population_.agents)));
  if (!recorded_days_.empty() && recorded_days_.back() != t - 1)
    throw std::logic_error("epidemic: days must be recorded in order from the first after clear_records()");
  recorded_days_.push_back(t);
  advance<true>(t, state, state, {});
  std::size_t bytes = 0;
  for (const BlockRecords& r : records_)
    bytes += r.agents.size() * sizeof(AgentRecord) + r.slots.size() * sizeof(SlotRecord);
  record_peak_bytes_ = std::max(record_peak_bytes_, bytes);
}

void Epidemic::undo_step(int t, std::span<double> state, std::span<double> residual) {
  if (recorded_days_.empty() || recorded_days_.back() != t)
    throw std::logic_error("epidemic: undo_step(" + std::to_string(t) + ") is not the latest recorded day");
  recorded_days_.pop_back();
  const Index n = population_.agents;
  double* x = state.data();
  double* tau = x + n;
  const std::size_t next_offset = day_offset(t + 1);
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    BlockRecords& r = records_[static_cast<std::size_t>(b)];
    std::fill(residual.begin() + first, residual.begin() + last, 0.0);
    for (std::size_t k = r.slot_starts.back(); k < r.slots.size(); ++k)
      state[history_start(r.slots[k].agent) + next_offset] = r.slots[k].value;
    for (std::size_t k = r.agent_starts.back(); k < r.agents.size(); ++k) {
      const AgentRecord& a = r.agents[k];
      x[a.agent] = a.x;
      tau[a.agent] = a.tau;
      residual[static_cast<std::size_t>(a.agent)] = a.hazard;
    }
    r.slots.resize(r.slot_starts.back());
    r.agents.resize(r.agent_starts.back());
    r.slot_starts.pop_back();
    r.agent_starts.pop_back();
  });
}

void Epidemic::clear_records() {
  recorded_days_.clear();
  for (BlockRecords& r : records_) {
    r.agents.clear();
    r.slots.clear();
    r.agent_starts.clear();
    r.slot_starts.clear();
  }
}

std::size_t Epidemic::record_bytes() const { return record_peak_bytes_; }

template <bool Record>
void Epidemic::advance(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  const Index n = population_.agents;
  const double* x = state.data();
  const double* tau = x + n;
  double* x1 = next.data();
  double* tau1 = x1 + n;
  set_layer_weights(t);
  shed(t, state);
  const DiseaseSettings& s = model_.settings;
  const std::span<const double> susceptibility = model_.parameters.susceptibility.values();
  const double r = model_.reproduction_on(t);
  const double protect = model_.protected_share(t);
  const std::size_t h = static_cast<std::size_t>(history_);
  const std::size_t next_offset = day_offset(t + 1);
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    BlockRecords* log = Record ? &records_[static_cast<std::size_t>(b)] : nullptr;
    if constexpr (Record) {
      log->agent_starts.push_back(log->agents.size());
      log->slot_starts.push_back(log->slots.size());
    }
    // The history moves on as it is: each agent's slot of day t + 1 is then overwritten. (In
    // place when recording: the record keeps the slot's earlier value.)
    if (state.data() != next.data()) {
      const std::size_t begin = slot(first, 0), end = slot(last - 1, 0) + h;
      std::copy(state.begin() + static_cast<std::ptrdiff_t>(begin), state.begin() + static_cast<std::ptrdiff_t>(end),
                next.begin() + static_cast<std::ptrdiff_t>(begin));
    }
    for (Index i = first; i < last; ++i) {
      double infected = 0.0, hz = 0.0;
      const double x0 = x[i], tau0 = tau[i];  // (x1 and x are one array when stepping in place)
      x1[i] = x0;
      tau1[i] = tau0;
      if (tau0 < 0.0) {
        hz = hazard_sum(i);
        // No shedding contact: no infection, and no gradient either (nothing can change that).
        if (hz != 0.0) {
          const int a = population_.age[static_cast<std::size_t>(i)];
          const double k = r * susceptibility[static_cast<std::size_t>(a)] / s.mean_interactions[static_cast<std::size_t>(a)];
          const Infection z =
              infection(k, hz, protect, infection_draw(t, i), s.sampler, s.temperature, s.straight_through);
          infected = x0 * z.value;
          x1[i] = x0 - infected;
          // The slot of day t + 1 now carries a derivative: the agent's last live slot.
          tau1[i] = z.hard > 0.0 ? t + 1.0 : -(t + 2.0);
        }
      } else if (wanes(t, tau0, i)) {
        x1[i] = 1.0;
        tau1[i] = -1.0 - tau0;  // susceptible again; its last live slot is still its infection's
      }
      const std::size_t new_slot = history_start(i) + next_offset;
      if constexpr (Record) {
        // Bits, not values: -0.0 and NaN must come back as they were.
        if (!same_bits(x1[i], x0) || !same_bits(tau1[i], tau0) || !same_bits(hz, 0.0))
          log->agents.push_back({static_cast<std::int32_t>(i), x0, tau0, hz});
        if (!same_bits(infected, state[new_slot])) log->slots.push_back({static_cast<std::int32_t>(i), state[new_slot]});
      }
      next[new_slot] = infected;
      if (!residual.empty()) residual[static_cast<std::size_t>(i)] = hz;
    }
  });
}

void Epidemic::step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                            std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  const Index n = population_.agents;
  const double* x = state.data();
  const double* tau = x + n;
  const double* x1_bar = next_adjoint.data();
  double* x_bar = state_adjoint.data();
  set_layer_weights(t);
  // Hazard sums are replayed from c without a residual; with one, the rows that need c compute it.
  const bool replay = residual.empty();
  if (replay) shed(t, state);
  else refresh_shedding_table();
  const DiseaseSettings& s = model_.settings;
  DiseaseParameters& p = model_.parameters;
  const double r = model_.reproduction_on(t);
  double d_protect_d_rate = 0.0;
  const double protect = model_.protected_share(t, &d_protect_d_rate);
  const PartialLayout layout = layout_of(model_);
  const std::size_t next_offset = day_offset(t + 1), today_offset = day_offset(t);
  const std::span<const double> susceptibility = p.susceptibility.values();

  // Infection's adjoint: the history's, x's, H-bar per agent, and the partials of R, S and the
  // vaccination rate.
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double* part = partials_.block(b);
    std::fill(part, part + layout.size, 0.0);
    for (Index w = first / 64; w < (last + 63) / 64; ++w) adjoint_mask_[static_cast<std::size_t>(w)] = 0;
    double h_bar_sum = 0.0;
    for (Index i = first; i < last; ++i) {
      // (The history's pass-through is in shedding's adjoint below, where the same lines are read.)
      const std::size_t new_slot = history_start(i) + next_offset;
      double h_bar = 0.0;
      const double m1_bar = next_adjoint[new_slot];
      if (tau[i] < 0.0) {
        const bool needed = m1_bar != 0.0 || x1_bar[i] != 0.0;
        const double hz = !needed ? 0.0 : residual.empty() ? hazard_sum(i) : residual[static_cast<std::size_t>(i)];
        if (hz == 0.0) {
          x_bar[i] += x1_bar[i];
        } else {
          const int a = population_.age[static_cast<std::size_t>(i)];
          const double sa = susceptibility[static_cast<std::size_t>(a)];
          const double ibar = s.mean_interactions[static_cast<std::size_t>(a)];
          const double k = r * sa / ibar;
          const double survive = std::exp(-k * hz);
          const double q = -std::expm1(-k * hz);
          const double prob = (1.0 - protect) * q;
          const Event ev = sample_event(prob, infection_draw(t, i), s.sampler, s.temperature);
          const double z = ev.value(s.straight_through);
          // x1 = x - x z, m1 = x z.
          x_bar[i] += x1_bar[i] * (1.0 - z) + m1_bar * z;
          const double p_bar = x[i] * (m1_bar - x1_bar[i]) * ev.slope;
          part[layout.vaccination] -= p_bar * q * d_protect_d_rate;
          const double lambda_bar = p_bar * (1.0 - protect) * survive;
          const double k_bar = lambda_bar * hz;
          h_bar = lambda_bar * k;
          part[layout.reproduction] += k_bar * sa / ibar;
          part[layout.susceptibility + static_cast<std::size_t>(a)] += k_bar * r / ibar;
        }
      } else if (!wanes(t, tau[i], i)) {
        x_bar[i] += x1_bar[i];
      }
      hazard_adjoint_[static_cast<std::size_t>(i)] = h_bar;
      if (h_bar != 0.0) adjoint_mask_[static_cast<std::size_t>(i / 64)] |= std::uint64_t{1} << (i % 64);
      h_bar_sum += h_bar;
    }
    part[layout.seeding] = h_bar_sum;  // reused: complete populations need the total of H-bar
  });
  fill_ghosts(hazard_adjoint_, adjoint_mask_);
  if (population_.complete) {
    partials_.reduce(static_cast<Index>(layout.seeding), 1);
    total_hazard_adjoint_ = partials_.total(static_cast<Index>(layout.seeding));
  }
  partials_.reduce(0, static_cast<Index>(layout.infectiousness));  // R, S and the vaccination rate
  const DiseaseModel::Knots knots = model_.reproduction_knots(t);
  if (knots.next_share == 0.0) {
    flush(partials_, layout.reproduction, 1, &p.reproduction.adjoints()[knots.week]);
  } else {
    double r_bar = 0.0;
    flush(partials_, layout.reproduction, 1, &r_bar);
    p.reproduction.adjoints()[knots.week] += (1.0 - knots.next_share) * r_bar;
    p.reproduction.adjoints()[knots.week + 1] += knots.next_share * r_bar;
  }
  flush(partials_, layout.susceptibility, susceptibility.size(), p.susceptibility.adjoints().data());
  flush(partials_, layout.vaccination, 1, p.vaccination_rate.adjoints().data());

  // Shedding's adjoint: c-bar_j gathers H-bar over j's contacts (symmetric rows); then the
  // history of the last `removal` days, A and g.
  const int removal = s.removal_day();
  const int recent = std::min(removal, t + 1);
  const std::int32_t* nb = population_.neighbors.data();
  const std::uint8_t* layer = population_.layer.data();
  const std::size_t layers = layer_weight_.size();
  const std::uint64_t* mask = adjoint_mask_.data();
  const double* table = shedding_table_.data();  // A[stage] g[k], as shed() left it
  const std::span<const double> profile = p.profile.values(), infectiousness = p.infectiousness.values();
  // c-bar_j reaches the slots of days t - recent + 1 ... t. An agent whose last live slot is
  // older needs none: its c is 0, its slots there are 0 in value, and their adjoints are dropped
  // by the steps that wrote them, so skipping its row changes no bit of the result.
  const int oldest = t - recent + 1;
  // The gather reads the non-zero H-bar packed in agent order: a small array where the contacts
  // of the agents that shed are read at random (the full one is several times larger than a cache).
  pack_hazard_adjoints();
  const double* packed = packed_adjoint_.data();
  const std::uint32_t* rank = adjoint_rank_.data();
  // H-bar of a contact i, given its mask word w and bit: its rank among the set bits indexes `packed`.
  auto packed_of = [packed, rank](std::int32_t i, std::uint64_t w, std::uint64_t bit) {
    return packed[rank[i >> 6] + static_cast<std::uint32_t>(std::popcount(w & (bit - 1)))];
  };
  const double* weight = layer_weight_.data();
  const bool masking = masking_;
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double* part = partials_.block(b);
    std::fill(part, part + layout.size, 0.0);
    for (Index j = first; j < last; ++j) {
      const int live = last_live_day(tau[j]);
      // The history passes its adjoint through, except the overwritten slot (two branch-free
      // runs); not where every slot it passes (days t - H + 2 ... t) is a constant zero. Before
      // c-bar's terms, as each slot's adjoint has always been summed.
      if (skip_dead_history_ && live < t - history_ + 2) continue;
      const std::size_t base = history_start(j), new_slot = base + next_offset, end = base + static_cast<std::size_t>(history_);
      for (std::size_t k = base; k < new_slot; ++k) state_adjoint[k] += next_adjoint[k];
      for (std::size_t k = new_slot + 1; k < end; ++k) state_adjoint[k] += next_adjoint[k];
      // Shedding's slots (days t - recent + 1 ... t) are within the passed ones: t - H + 2 <= oldest.
      if (skip_dead_history_ && live < oldest) continue;
      const double c = replay ? shedding_[static_cast<std::size_t>(j)] : shedding_of(j, t, state);
      double c_bar = 0.0;
      if (population_.complete) {
        const double spread = (total_hazard_adjoint_ - hazard_adjoint_[static_cast<std::size_t>(j)]) /
                              static_cast<double>(population_.total_agents() - 1);
        c_bar = layer_weight_[0] * spread;
        part[layout.reduction] += c * spread;
      } else if (c == 0.0 && !masking) {
        // An agent that does not shed adds zeros to the reduction partials: only c-bar (the same
        // bits as the loop below).
        const std::int64_t e0 = population_.offsets[static_cast<std::size_t>(j)];
        const std::int64_t e1 = population_.offsets[static_cast<std::size_t>(j) + 1];
        for (std::int64_t e = e0; e < e1; ++e) {
          const std::int32_t i = nb[e];
          const std::uint64_t w = mask[i >> 6], bit = std::uint64_t{1} << (i & 63);
          if (w & bit) c_bar += weight[layers == 1 ? 0 : layer[e]] * packed_of(i, w, bit);
        }
      } else {
        const std::int64_t e0 = population_.offsets[static_cast<std::size_t>(j)];
        const std::int64_t e1 = population_.offsets[static_cast<std::size_t>(j) + 1];
        for (std::int64_t e = e0; e < e1; ++e) {
          const std::int32_t i = nb[e];
          const std::uint64_t w = mask[i >> 6], bit = std::uint64_t{1} << (i & 63);
          if (!(w & bit)) continue;
          const std::size_t l = layers == 1 ? 0 : layer[e];
          if (masking && !active_today(j, i, l)) continue;
          const double hb = packed_of(i, w, bit);
          c_bar += layer_weight_[l] * hb;
          part[layout.reduction + l] += c * hb;
        }
      }
      if (c_bar == 0.0) continue;
      // Slots after the last live day are constant zeros too.
      const int newest = skip_dead_history_ ? std::max(0, t - live) : 0;
      // The slot of day t - newest (newest < H).
      std::size_t m = base + (today_offset >= static_cast<std::size_t>(newest) ? today_offset - newest
                                                                                : today_offset + history_ - newest);
      for (int k = newest; k < recent; ++k) {
        state_adjoint[m] += c_bar * table[k];
        // Parameters see occupancies by value: most in the history are zero (escaped events).
        if (const double v = state[m]; v != 0.0) {
          const std::size_t stage = k < s.exposed_days ? 0 : 1;
          part[layout.infectiousness + stage] += c_bar * v * profile[static_cast<std::size_t>(k)];
          part[layout.profile + static_cast<std::size_t>(k)] += c_bar * v * infectiousness[stage];
        }
        m = m == base ? base + static_cast<std::size_t>(history_) - 1 : m - 1;  // the day before
      }
    }
  });
  partials_.reduce(static_cast<Index>(layout.infectiousness), static_cast<Index>(layout.seeding - layout.infectiousness));
  flush(partials_, layout.infectiousness, 2, p.infectiousness.adjoints().data());
  flush(partials_, layout.profile, profile.size(), p.profile.adjoints().data());
  // d weight / d reduction = -layer weight, from the start day on.
  if (t >= s.reduction_start)
    for (std::size_t l = 0; l < layers; ++l)
      flush(partials_, layout.reduction + l, 1, &p.contact_reduction.adjoints()[l], -s.layer_weight[l]);
}

void Epidemic::pack_hazard_adjoints() {
  const Index n = population_.agents + static_cast<Index>(population_.ghosts.size());
  const std::size_t words = adjoint_mask_.size();
  std::uint32_t count = 0;
  for (std::size_t w = 0; w < words; ++w) {
    adjoint_rank_[w] = count;
    count += static_cast<std::uint32_t>(std::popcount(adjoint_mask_[w]));
  }
  // Blocks hold whole mask words: each writes its own run of the packed array.
  parallel_for_blocks(n, [&](Index first, Index last) {
    for (Index w = first / 64; w < (last + 63) / 64; ++w) {
      std::uint32_t k = adjoint_rank_[static_cast<std::size_t>(w)];
      for (std::uint64_t bits = adjoint_mask_[static_cast<std::size_t>(w)]; bits != 0; bits &= bits - 1)
        packed_adjoint_[k++] = hazard_adjoint_[static_cast<std::size_t>(w * 64 + std::countr_zero(bits))];
    }
  });
}

void Epidemic::clear_adjoints() {
  for (Array<1>* q : model_.parameters.all()) std::fill(q->adjoints().begin(), q->adjoints().end(), 0.0);
}

}  // namespace simgrad::contagion
