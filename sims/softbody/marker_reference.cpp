#include "sims/softbody/marker_reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/rng.hpp"
#include "core/rollout.hpp"
#include "sims/softbody/losses.hpp"

namespace simgrad::softbody {

template <int D>
std::vector<double> simulate_marker_reference(System& system, Index node_count, const std::vector<std::int32_t>& markers,
                                              int stride, int steps, std::span<const GeneratingValue> generating,
                                              const MarkerNoise& noise, const MarkerRun* run) {
  if (run != nullptr && noise.relative > 0.0)
    throw std::invalid_argument("marker noise relative to the markers' motion does not split over processes");
  std::vector<std::vector<double>> own;
  for (const GeneratingValue& g : generating) {
    own.emplace_back(g.quantity->values().begin(), g.quantity->values().end());
    std::fill(g.quantity->values().begin(), g.quantity->values().end(), g.value);
  }
  std::vector<double> frames;
  {
    TrajectoryMatchLoss<D> recorder(node_count, markers, stride, std::vector<double>(markers.size() * D, 0.0));
    RolloutOptions record;
    record.observer = [&](int t, std::span<const double> state) {
      if (t % stride == 0) recorder.append_frame(state, frames);
    };
    Rollout(system, recorder, steps, record).loss();
  }
  double sigma = noise.absolute;
  if (noise.relative > 0.0) {
    const std::size_t per_frame = markers.size() * D;
    double sum = 0.0;
    for (std::size_t i = per_frame; i < frames.size(); ++i) {
      const double d = frames[i] - frames[i % per_frame];
      sum += d * d;
    }
    sigma += noise.relative * std::sqrt(sum / static_cast<double>(std::max<std::size_t>(1, frames.size() - per_frame)));
  }
  // Value i of the reference draws standard_normal(seed, 0, i), in the whole reference's numbering.
  const std::size_t per_frame = markers.size() * D;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    std::size_t whole = i;
    if (run != nullptr)
      whole = (i / per_frame) * static_cast<std::size_t>(run->whole * D) + static_cast<std::size_t>(run->first * D) + i % per_frame;
    frames[i] += sigma * standard_normal(noise.seed, 0, whole);
  }
  for (std::size_t k = 0; k < generating.size(); ++k) std::copy(own[k].begin(), own[k].end(), generating[k].quantity->values().begin());
  return frames;
}

template std::vector<double> simulate_marker_reference<2>(System&, Index, const std::vector<std::int32_t>&, int, int,
                                                          std::span<const GeneratingValue>, const MarkerNoise&, const MarkerRun*);
template std::vector<double> simulate_marker_reference<3>(System&, Index, const std::vector<std::int32_t>&, int, int,
                                                          std::span<const GeneratingValue>, const MarkerNoise&, const MarkerRun*);

}  // namespace simgrad::softbody
