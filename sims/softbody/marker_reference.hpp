// Reference marker trajectories made by simulation, for fitting a body when no recorded motion
// is given: the body run with other values, its markers recorded every few steps, plus Gaussian
// sensor noise. The "softbody" and "fem" scenarios fit such references.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/field.hpp"
#include "core/system.hpp"

namespace simgrad::softbody {

// A quantity set to one value in every entry while the reference is simulated.
struct GeneratingValue {
  Array<1>* quantity;
  double value;
};

// Sensor noise: Gaussian, of standard deviation `absolute` plus `relative` times the RMS
// displacement of the markers from the first frame; value i draws standard_normal(seed, 0, i).
struct MarkerNoise {
  double absolute = 0.0;
  double relative = 0.0;
  std::uint64_t seed = 1;
};

// Where a split model's part's markers lie among the whole model's: the whole's markers
// [first, first + markers) of `whole`. The noise a value draws is the whole reference's.
struct MarkerRun {
  Index first = 0;
  Index whole = 0;
};

// The markers' positions (frames x markers x D values, frame f at step f * stride) in a run of
// `steps` steps of `system`, whose state starts with the positions of `node_count` nodes, with
// the generating values in place of the model's own (restored afterwards), plus the noise.
// With `run`, the markers are that run of a split model's (noise relative to the markers'
// motion is then refused: it is a sum over all of them).
template <int D>
std::vector<double> simulate_marker_reference(System& system, Index node_count, const std::vector<std::int32_t>& markers,
                                              int stride, int steps, std::span<const GeneratingValue> generating,
                                              const MarkerNoise& noise, const MarkerRun* run = nullptr);

}  // namespace simgrad::softbody
