#include "sims/contagion/epidemic.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "sims/contagion/transition.hpp"

namespace simgrad::contagion {

namespace {

// Draw indices of the three kinds of event, so that no two share a Philox block.
enum Draw : std::uint32_t { kInfectionDraw = 0, kSeedingDraw = 1, kDeathDraw = 2 };

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
  return {m.parameters.susceptibility.value.size(), m.parameters.profile.value.size(),
          m.parameters.contact_reduction.value.size()};
}

// Adds the blocks' partials at [offset, offset + count) to target, block by block in order.
void flush(const std::vector<double>& partials, std::size_t stride, Index blocks, std::size_t offset,
           std::size_t count, double* target, double scale = 1.0) {
  for (Index b = 0; b < blocks; ++b)
    for (std::size_t k = 0; k < count; ++k) target[k] += scale * partials[static_cast<std::size_t>(b) * stride + offset + k];
}

}  // namespace

Epidemic::Epidemic(const Population& population, DiseaseModel& model) : population_(population), model_(model) {
  const std::size_t n = static_cast<std::size_t>(population.agents);
  if (population.complete && population.agents < 2) throw std::invalid_argument("a complete population needs two agents");
  shedding_.assign(n, 0.0);
  shedding_mask_.assign((n + 63) / 64, 0);
  hazard_adjoint_.assign(n, 0.0);
  layer_weight_.assign(static_cast<std::size_t>(population.layers), 1.0);
  shedding_table_.assign(static_cast<std::size_t>(model.settings.removal_day()) + 1, 0.0);
  if (model.parameters.susceptibility.value.size() < static_cast<std::size_t>(population.age_groups))
    throw std::invalid_argument("the model has fewer susceptibility entries than the population has age groups");
  if (model.parameters.contact_reduction.value.size() < static_cast<std::size_t>(population.layers))
    throw std::invalid_argument("the model has fewer contact layers than the population");
  partials_.assign(static_cast<std::size_t>(block_count(population.agents)) * layout_of(model).size, 0.0);
}

double Epidemic::infection_draw(int t, Index i) const {
  return uniform01(model_.settings.seed, static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(i), kInfectionDraw);
}
double Epidemic::seeding_draw(Index i) const {
  return uniform01(model_.settings.seed, 0, static_cast<std::uint64_t>(i), kSeedingDraw);
}
double Epidemic::death_draw(int infection_day, Index i) const {
  return uniform01(model_.settings.seed, static_cast<std::uint64_t>(infection_day), static_cast<std::uint64_t>(i), kDeathDraw);
}
bool Epidemic::dies(double tau, Index i) const {
  return death_draw(static_cast<int>(tau), i) < model_.parameters.mortality.value[0];
}

bool Epidemic::wanes(int t, double tau, Index i) const {
  const DiseaseSettings& s = model_.settings;
  return s.immune_days > 0 && tau >= 0.0 && t + 1 - static_cast<int>(tau) == s.removal_day() + s.immune_days &&
         !dies(tau, i);
}

void Epidemic::initial_state(std::span<double> state) {
  const Index n = population_.agents;
  const double p = model_.parameters.initial_infected.value[0];
  const DiseaseSettings& s = model_.settings;
  parallel_for_blocks(n, [&](Index first, Index last) {
    for (Index i = first; i < last; ++i) {
      const Event ev = sample_event(p, seeding_draw(i), s.sampler, s.temperature);
      state[static_cast<std::size_t>(i)] = ev.value(s.straight_through);
      state[static_cast<std::size_t>(n + i)] = ev.hard > 0.0 ? 0.0 : -1.0;
    }
  });
}

void Epidemic::initial_state_adjoint(std::span<const double> state_adjoint) {
  const Index n = population_.agents;
  const double p = model_.parameters.initial_infected.value[0];
  const DiseaseSettings& s = model_.settings;
  const PartialLayout layout = layout_of(model_);
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double sum = 0.0;
    for (Index i = first; i < last; ++i)
      sum += state_adjoint[static_cast<std::size_t>(i)] * sample_event(p, seeding_draw(i), s.sampler, s.temperature).slope;
    partials_[static_cast<std::size_t>(b) * layout.size + layout.seeding] = sum;
  });
  flush(partials_, layout.size, block_count(n), layout.seeding, 1, model_.parameters.initial_infected.adjoint.data());
}

void Epidemic::set_layer_weights(int t) {
  for (int l = 0; l < population_.layers; ++l) layer_weight_[static_cast<std::size_t>(l)] = model_.contact_weight(l, t);
}

void Epidemic::shed(int t, const double* y, const double* tau) {
  const Index n = population_.agents;
  const PartialLayout layout = layout_of(model_);
  // Blocks hold a whole number of mask words (kBlockSize is a multiple of 64), so no two threads
  // write one word.
  static_assert(kBlockSize % 64 == 0);
  const int removal = model_.settings.removal_day();
  for (int k = 0; k <= removal; ++k) shedding_table_[static_cast<std::size_t>(k)] = model_.shedding(k);
  const double* table = shedding_table_.data();
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double sum = 0.0;
    for (Index w = first / 64; w < (last + 63) / 64; ++w) shedding_mask_[static_cast<std::size_t>(w)] = 0;
    for (Index i = first; i < last; ++i) {
      // Days since infection, or past removal (table entry 0) for the susceptible and removed.
      const unsigned k = tau[i] >= 0.0 ? static_cast<unsigned>(t - static_cast<int>(tau[i])) : static_cast<unsigned>(removal);
      const double c = y[i] * table[std::min(k, static_cast<unsigned>(removal))];
      shedding_[static_cast<std::size_t>(i)] = c;
      if (c != 0.0) shedding_mask_[static_cast<std::size_t>(i / 64)] |= std::uint64_t{1} << (i % 64);
      sum += c;
    }
    partials_[static_cast<std::size_t>(b) * layout.size] = sum;
  });
  if (population_.complete) {
    total_shedding_ = 0.0;
    flush(partials_, layout.size, block_count(n), 0, 1, &total_shedding_);
  }
}

double Epidemic::hazard_sum(Index i) const {
  if (population_.complete)
    return layer_weight_[0] * (total_shedding_ - shedding_[static_cast<std::size_t>(i)]) /
           static_cast<double>(population_.agents - 1);
  const std::int64_t first = population_.offsets[static_cast<std::size_t>(i)];
  const std::int64_t last = population_.offsets[static_cast<std::size_t>(i) + 1];
  const std::int32_t* nb = population_.neighbors.data();
  const std::uint64_t* mask = shedding_mask_.data();
  auto sheds = [mask](std::int32_t j) { return (mask[j >> 6] >> (j & 63)) & 1u; };
  // Terms of agents that do not shed are +0.0 and would not change the sum: skipped.
  double h = 0.0;
  if (population_.layers == 1) {
    for (std::int64_t e = first; e < last; ++e)
      if (sheds(nb[e])) h += shedding_[static_cast<std::size_t>(nb[e])];
    return layer_weight_[0] * h;
  }
  const std::uint8_t* layer = population_.layer.data();
  for (std::int64_t e = first; e < last; ++e)
    if (sheds(nb[e])) h += layer_weight_[layer[e]] * shedding_[static_cast<std::size_t>(nb[e])];
  return h;
}

void Epidemic::step(int t, std::span<const double> state, std::span<double> next, std::span<double>) {
  const Index n = population_.agents;
  const double* y = state.data();
  const double* tau = y + n;
  double* y1 = next.data();
  double* tau1 = y1 + n;
  set_layer_weights(t);
  shed(t, y, tau);
  const DiseaseSettings& s = model_.settings;
  const DiseaseParameters& p = model_.parameters;
  const double r = model_.reproduction_on(t);
  const double protect = model_.protected_share(t);
  parallel_for_blocks(n, [&](Index first, Index last) {
    for (Index i = first; i < last; ++i) {
      double h = 0.0;
      if (tau[i] < 0.0) {
        h = hazard_sum(i);
        // No shedding contact: no infection, and no gradient either (nothing can change that).
        double z = 0.0, hard = 0.0;
        if (h != 0.0) {
          const int a = population_.age[static_cast<std::size_t>(i)];
          const double k = r * p.susceptibility.value[static_cast<std::size_t>(a)] / s.mean_interactions[static_cast<std::size_t>(a)];
          const double prob = (1.0 - protect) * -std::expm1(-k * h);
          if (s.straight_through) {
            hard = z = hard_event(prob, infection_draw(t, i));
          } else {
            const Event ev = sample_event(prob, infection_draw(t, i), s.sampler, s.temperature);
            hard = ev.hard;
            z = ev.soft;
          }
        }
        y1[i] = y[i] + (1.0 - y[i]) * z;
        tau1[i] = hard > 0.0 ? t + 1.0 : -1.0;
      } else if (wanes(t, tau[i], i)) {
        y1[i] = 0.0;
        tau1[i] = -1.0;
      } else {
        y1[i] = y[i];
        tau1[i] = tau[i];
      }
    }
  });
}

void Epidemic::step_adjoint(int t, std::span<const double> state, std::span<const double>,
                            std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  const Index n = population_.agents;
  const double* y = state.data();
  const double* tau = y + n;
  const double* y1_bar = next_adjoint.data();
  double* y_bar = state_adjoint.data();
  set_layer_weights(t);
  shed(t, y, tau);  // c is needed by both adjoint passes; recomputing it is one cheap pass
  const DiseaseSettings& s = model_.settings;
  DiseaseParameters& p = model_.parameters;
  const double r = model_.reproduction_on(t);
  double d_protect_d_rate = 0.0;
  const double protect = model_.protected_share(t, &d_protect_d_rate);
  const PartialLayout layout = layout_of(model_);
  const Index blocks = block_count(n);

  // Infection's adjoint: H-bar per agent, and the partials of R, S and the vaccination rate.
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double* part = partials_.data() + static_cast<std::size_t>(b) * layout.size;
    std::fill(part, part + layout.size, 0.0);
    double h_bar_sum = 0.0;
    for (Index i = first; i < last; ++i) {
      double h_bar = 0.0;
      if (tau[i] < 0.0) {
        // y-bar' = 0 (straight-through, every day before the agent's infection): nothing to add.
        if (y1_bar[i] == 0.0) {
          hazard_adjoint_[static_cast<std::size_t>(i)] = 0.0;
          continue;
        }
        const double h = hazard_sum(i);
        if (h == 0.0) {
          y_bar[i] += y1_bar[i];
          hazard_adjoint_[static_cast<std::size_t>(i)] = 0.0;
          continue;
        }
        const int a = population_.age[static_cast<std::size_t>(i)];
        const double sa = p.susceptibility.value[static_cast<std::size_t>(a)];
        const double ibar = s.mean_interactions[static_cast<std::size_t>(a)];
        const double k = r * sa / ibar;
        const double survive = std::exp(-k * h);
        const double q = -std::expm1(-k * h);
        const double prob = (1.0 - protect) * q;
        const Event ev = sample_event(prob, infection_draw(t, i), s.sampler, s.temperature);
        y_bar[i] += y1_bar[i] * (1.0 - ev.value(s.straight_through));
        const double p_bar = y1_bar[i] * (1.0 - y[i]) * ev.slope;
        part[layout.vaccination] -= p_bar * q * d_protect_d_rate;
        const double lambda_bar = p_bar * (1.0 - protect) * survive;
        const double k_bar = lambda_bar * h;
        h_bar = lambda_bar * k;
        part[layout.reproduction] += k_bar * sa / ibar;
        part[layout.susceptibility + static_cast<std::size_t>(a)] += k_bar * r / ibar;
      } else if (!wanes(t, tau[i], i)) {
        y_bar[i] += y1_bar[i];
      }
      hazard_adjoint_[static_cast<std::size_t>(i)] = h_bar;
      h_bar_sum += h_bar;
    }
    part[layout.seeding] = h_bar_sum;  // reused: complete populations need the total of H-bar
  });
  if (population_.complete) {
    total_hazard_adjoint_ = 0.0;
    flush(partials_, layout.size, blocks, layout.seeding, 1, &total_hazard_adjoint_);
  }
  const std::size_t week = std::min(static_cast<std::size_t>(t / 7), p.reproduction.value.size() - 1);
  flush(partials_, layout.size, blocks, layout.reproduction, 1, &p.reproduction.adjoint[week]);
  flush(partials_, layout.size, blocks, layout.susceptibility, p.susceptibility.value.size(), p.susceptibility.adjoint.data());
  flush(partials_, layout.size, blocks, layout.vaccination, 1, p.vaccination_rate.adjoint.data());

  // Shedding's adjoint: c-bar_j gathers H-bar over j's contacts (symmetric rows), only for
  // agents that shed today; then y, A and g.
  const int removal = s.removal_day();
  const std::int32_t* nb = population_.neighbors.data();
  const std::uint8_t* layer = population_.layer.data();
  const std::size_t layers = layer_weight_.size();
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) {
    double* part = partials_.data() + static_cast<std::size_t>(b) * layout.size;
    std::fill(part, part + layout.size, 0.0);
    for (Index j = first; j < last; ++j) {
      if (tau[j] < 0.0) continue;
      const int k = t - static_cast<int>(tau[j]);
      if (k < 0 || k >= removal) continue;
      const double c = shedding_[static_cast<std::size_t>(j)];
      double c_bar = 0.0;
      if (population_.complete) {
        const double spread = (total_hazard_adjoint_ - hazard_adjoint_[static_cast<std::size_t>(j)]) /
                              static_cast<double>(n - 1);
        c_bar = layer_weight_[0] * spread;
        part[layout.reduction] += c * spread;
      } else {
        const std::int64_t e0 = population_.offsets[static_cast<std::size_t>(j)];
        const std::int64_t e1 = population_.offsets[static_cast<std::size_t>(j) + 1];
        for (std::int64_t e = e0; e < e1; ++e) {
          const double hb = hazard_adjoint_[static_cast<std::size_t>(nb[e])];
          const std::size_t l = layers == 1 ? 0 : layer[e];
          c_bar += layer_weight_[l] * hb;
          part[layout.reduction + l] += c * hb;
        }
      }
      const std::size_t stage = k < s.exposed_days ? 0 : 1;
      const double a = p.infectiousness.value[stage];
      const double g = p.profile.value[static_cast<std::size_t>(k)];
      y_bar[j] += c_bar * a * g;
      part[layout.infectiousness + stage] += c_bar * y[j] * g;
      part[layout.profile + static_cast<std::size_t>(k)] += c_bar * y[j] * a;
    }
  });
  flush(partials_, layout.size, blocks, layout.infectiousness, 2, p.infectiousness.adjoint.data());
  flush(partials_, layout.size, blocks, layout.profile, p.profile.value.size(), p.profile.adjoint.data());
  // d weight / d reduction = -layer weight, from the start day on.
  if (t >= s.reduction_start)
    for (std::size_t l = 0; l < layers; ++l)
      flush(partials_, layout.size, blocks, layout.reduction + l, 1, &p.contact_reduction.adjoint[l],
            -s.layer_weight[l]);
}

void Epidemic::clear_adjoints() {
  for (Quantity* q : model_.parameters.all()) std::fill(q->adjoint.begin(), q->adjoint.end(), 0.0);
}

}  // namespace simgrad::contagion
