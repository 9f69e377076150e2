#include "sims/mpm/losses.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace simgrad::mpm {

template <int D>
MpmLoss<D>::MpmLoss(Index particle_count, MpmLossSettings<D> settings) : particle_count_(particle_count), settings_(std::move(settings)) {
  if (settings_.particles.empty())
    for (Index p = 0; p < particle_count; ++p) settings_.particles.push_back(static_cast<std::int32_t>(p));
  for (std::int32_t p : settings_.particles)
    if (p < 0 || p >= particle_count) throw std::invalid_argument("mpm loss: no particle " + std::to_string(p));
}

template <int D>
Vec<double, D> MpmLoss<D>::centre(std::span<const double> state) const {
  Vec<double, D> c = Vec<double, D>::zero();
  for (std::int32_t p : settings_.particles)
    for (int d = 0; d < D; ++d) c[d] += state[static_cast<std::size_t>(p) * D + d];
  return (1.0 / static_cast<double>(settings_.particles.size())) * c;
}

template <int D>
double MpmLoss<D>::hard_runout(std::span<const double> state) const {
  double top = -INFINITY;
  for (Index p = 0; p < particle_count_; ++p) top = std::max(top, state[static_cast<std::size_t>(p * D + settings_.runout_axis)]);
  return top;
}

template <int D>
double MpmLoss<D>::runout(std::span<const double> state) const {
  const double top = hard_runout(state), tau = settings_.runout_temperature;
  if (tau <= 0.0) return top;
  double total = 0.0;
  for (Index p = 0; p < particle_count_; ++p) total += std::exp((state[static_cast<std::size_t>(p * D + settings_.runout_axis)] - top) / tau);
  return top + tau * std::log(total);
}

template <int D>
double MpmLoss<D>::term(int, std::span<const double> state) {
  const MpmLossSettings<D>& s = settings_;
  double loss = 0.0;
  if (s.target_weight != 0.0 || s.progress_weight != 0.0) {
    const Vec<double, D> c = centre(state);
    const Vec<double, D> r = c - s.target;
    loss += s.target_weight * dot(r, r) - s.progress_weight * dot(s.direction, c);
  }
  if (s.runout_weight != 0.0) {
    const double r = runout(state) - s.runout_target;
    loss += s.runout_weight * r * r;
  }
  return loss;
}

template <int D>
void MpmLoss<D>::term_adjoint(int, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  const MpmLossSettings<D>& s = settings_;
  if (s.target_weight != 0.0 || s.progress_weight != 0.0) {
    const Vec<double, D> g = (seed / static_cast<double>(s.particles.size())) *
                             (2.0 * s.target_weight * (centre(state) - s.target) - s.progress_weight * s.direction);
    for (std::int32_t p : s.particles)
      for (int d = 0; d < D; ++d) state_adjoint[static_cast<std::size_t>(p) * D + d] += g[d];
  }
  if (s.runout_weight != 0.0) {
    const double top = hard_runout(state), tau = s.runout_temperature;
    const double g = seed * 2.0 * s.runout_weight * (runout(state) - s.runout_target);
    const auto at = [&](Index p) { return static_cast<std::size_t>(p * D + s.runout_axis); };
    if (tau <= 0.0) {
      for (Index p = 0; p < particle_count_; ++p)
        if (state[at(p)] == top) {
          state_adjoint[at(p)] += g;
          break;
        }
      return;
    }
    double total = 0.0;
    for (Index p = 0; p < particle_count_; ++p) total += std::exp((state[at(p)] - top) / tau);
    for (Index p = 0; p < particle_count_; ++p) state_adjoint[at(p)] += g * std::exp((state[at(p)] - top) / tau) / total;
  }
}

template class MpmLoss<2>;
template class MpmLoss<3>;

}  // namespace simgrad::mpm
