#include "sims/fluid/losses.hpp"

#include <stdexcept>
#include <type_traits>

#include "core/band_scatter.hpp"

namespace simgrad::fluid {

template <class Model>
SmokeLossOf<Model>::SmokeLossOf(Model& model, SmokeLossSettings settings, const RowSlabs* slabs)
    : model_(model), settings_(std::move(settings)), slabs_(slabs) {
  const std::size_t cells = static_cast<std::size_t>(model.grid.cells());
  if (!settings_.target.empty() && settings_.target.size() != cells)
    throw std::invalid_argument("the target image has " + std::to_string(settings_.target.size()) +
                                " values, expected one per cell (" + std::to_string(cells) + ")");
  if (!settings_.region.empty()) {
    if (settings_.region.size() != cells) throw std::invalid_argument("the target region needs one flag per cell");
    for (std::uint8_t r : settings_.region) region_cells_ += r ? 1.0 : 0.0;
    if (region_cells_ == 0.0) throw std::invalid_argument("the target region holds no cell");
  }
}

template <class Model>
bool SmokeLossOf<Model>::has_term(int t, int steps) const {
  if (t == 0 && settings_.smoothness > 0.0) return true;
  if (t == steps && !settings_.target.empty()) return true;
  return !settings_.region.empty() && t == region_step(steps);
}

template <class Model>
template <class Term>
double SmokeLossOf<Model>::cell_sum(const Term& term) const {
  const auto& g = model_.grid;
  if constexpr (std::is_same_v<Model, SmokeModel>) {
    return sum_by_bands(g.ny(), g.nx(), BandScatter::kBandRows, slabs_, band_partial_, band_sums_, term);
  } else {
    double sum = 0.0;
    for (Index c = 0; c < g.cells(); ++c) sum += term(c);
    return sum;
  }
}

template <class Model>
std::pair<std::size_t, std::size_t> SmokeLossOf<Model>::own_cells() const {
  if constexpr (std::is_same_v<Model, SmokeModel>) {
    if (slabs_) {
      const std::size_t nx = static_cast<std::size_t>(model_.grid.nx());
      return {static_cast<std::size_t>(slabs_->own().first) * nx, static_cast<std::size_t>(slabs_->own().last) * nx};
    }
  }
  return {0, static_cast<std::size_t>(model_.grid.cells())};
}

template <class Model>
double SmokeLossOf<Model>::image_mismatch(std::span<const double> state) const {
  if (settings_.target.empty()) return 0.0;
  const auto f = fields_of(model_.grid, state);
  const double sum = cell_sum([&](Index c) {
    const double d = f.density[static_cast<std::size_t>(c)] - settings_.target[static_cast<std::size_t>(c)];
    return d * d;
  });
  return sum / static_cast<double>(settings_.target.size());
}

template <class Model>
double SmokeLossOf<Model>::region_density(std::span<const double> state) const {
  if (settings_.region.empty()) return 0.0;
  const auto f = fields_of(model_.grid, state);
  const double sum = cell_sum([&](Index c) {
    return settings_.region[static_cast<std::size_t>(c)] ? f.density[static_cast<std::size_t>(c)] : 0.0;
  });
  return sum / region_cells_;
}

template <class Model>
double SmokeLossOf<Model>::smoothness_penalty(bool add_adjoint, double seed) {
  double sum = 0.0;
  for (Array<1>* q : {&model_.speed, &model_.angle, &model_.tilt, &model_.vent_speed}) {
    const std::span<const double> value = q->values();
    const std::span<double> adjoint = q->adjoints();
    for (int s = 0, count = q == &model_.vent_speed ? model_.vent_count() : model_.source_count(); s < count; ++s)
      for (int k = 0; k + 1 < model_.knots; ++k) {
        const std::size_t i = static_cast<std::size_t>(s * model_.knots + k);
        const double d = value[i + 1] - value[i];
        sum += d * d;
        if (add_adjoint) {
          adjoint[i + 1] += seed * settings_.smoothness * 2.0 * d;
          adjoint[i] -= seed * settings_.smoothness * 2.0 * d;
        }
      }
  }
  return settings_.smoothness * sum;
}

template <class Model>
double SmokeLossOf<Model>::term(int t, std::span<const double> state) {
  const int steps = model_.settings.steps;
  double value = 0.0;
  if (t == 0 && settings_.smoothness > 0.0) value += smoothness_penalty(false, 0.0);
  if (t == steps) value += settings_.image_weight * image_mismatch(state);
  if (!settings_.region.empty() && t == region_step(steps)) {
    const double mean = region_density(state);
    value += settings_.region_target ? (mean - *settings_.region_target) * (mean - *settings_.region_target) : -mean;
  }
  return value;
}

template <class Model>
void SmokeLossOf<Model>::term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  const int steps = model_.settings.steps;
  const auto f = fields_of(model_.grid, state);
  const auto a = fields_of(model_.grid, state_adjoint);
  if (t == 0 && settings_.smoothness > 0.0) smoothness_penalty(true, seed);
  if (t == steps && !settings_.target.empty()) {
    const double scale = seed * settings_.image_weight * 2.0 / static_cast<double>(settings_.target.size());
    const auto [first, last] = own_cells();
    for (std::size_t c = first; c < last; ++c) a.density[c] += scale * (f.density[c] - settings_.target[c]);
  }
  if (!settings_.region.empty() && t == region_step(steps)) {
    const double dmean = settings_.region_target ? 2.0 * (region_density(state) - *settings_.region_target) : -1.0;
    const auto [first, last] = own_cells();
    for (std::size_t c = first; c < last; ++c)
      if (settings_.region[c]) a.density[c] += seed * dmean / region_cells_;
  }
}

template class SmokeLossOf<SmokeModel>;
template class SmokeLossOf<SmokeModel3>;

}  // namespace simgrad::fluid
