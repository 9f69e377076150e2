// The parts of MacCormack advection with the Selle et al. (2008) limiter that do not depend on
// the grid's dimension, shared by the 2D and 3D advectors: which stencil values bound a sample
// (the limiter's range), the corrected and clamped result, and the adjoint of that correction.
// Every sample is independent, so each runs as a parallel loop over the samples.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "core/parallel.hpp"

namespace simgrad::fluid {

// Of the values q takes at a stencil's `count` indices, which index holds the smallest and which
// the largest (the first one on ties).
inline void stencil_extremes(const Index* index, int count, const double* q, std::int32_t& lowest,
                             std::int32_t& highest) {
  int lo = 0, hi = 0;
  for (int m = 1; m < count; ++m) {
    if (q[index[m]] < q[index[lo]]) lo = m;
    if (q[index[m]] > q[index[hi]]) hi = m;
  }
  lowest = static_cast<std::int32_t>(index[lo]);
  highest = static_cast<std::int32_t>(index[hi]);
}

// out = forth + (q - back) / 2, clamped to the values the forward step interpolated between.
inline void maccormack_correct(std::span<const double> q, std::span<const double> forth, std::span<const double> back,
                               const std::int32_t* lowest, const std::int32_t* highest, std::span<double> out) {
  parallel_for_blocks(static_cast<Index>(out.size()), [&](Index first, Index last) {
    for (Index k = first; k < last; ++k) {
      const std::size_t ks = static_cast<std::size_t>(k);
      const double r = forth[ks] + 0.5 * (q[ks] - back[ks]);
      out[ks] = std::clamp(r, q[static_cast<std::size_t>(lowest[ks])], q[static_cast<std::size_t>(highest[ks])]);
    }
  });
}

// The adjoint of maccormack_correct given d out: the adjoints of the forward and the round-trip
// fields (dforth, dback), and what q itself receives, as one (index, value) per sample
// (extra_index, extra_value). A clamped sample is the extreme value it was clamped to; a free one
// is forth + (q - back) / 2; the clamp's choice does not move with small changes away from its
// switches. extra_value may be `back` (each sample reads its own entry before writing it).
inline void maccormack_correct_adjoint(std::span<const double> q, std::span<const double> forth, const double* back,
                                       const std::int32_t* lowest, const std::int32_t* highest,
                                       std::span<const double> dout, double* dforth, double* dback,
                                       std::int32_t* extra_index, double* extra_value) {
  parallel_for_blocks(static_cast<Index>(dout.size()), [&](Index first, Index last) {
    for (Index k = first; k < last; ++k) {
      const std::size_t ks = static_cast<std::size_t>(k);
      const double a = dout[ks];
      const double r = forth[ks] + 0.5 * (q[ks] - back[ks]);
      const double lo = q[static_cast<std::size_t>(lowest[ks])], hi = q[static_cast<std::size_t>(highest[ks])];
      dforth[ks] = dback[ks] = 0.0;
      if (r < lo || r > hi) {
        extra_index[ks] = r < lo ? lowest[ks] : highest[ks];
        extra_value[ks] = a;
      } else {
        dforth[ks] = a;
        dback[ks] = -0.5 * a;
        extra_index[ks] = static_cast<std::int32_t>(k);
        extra_value[ks] = 0.5 * a;
      }
    }
  });
}

}  // namespace simgrad::fluid
