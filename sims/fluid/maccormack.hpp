// The parts of MacCormack advection with the Selle et al. (2008) limiter that do not depend on
// the grid's dimension, shared by the 2D and 3D advectors: which stencil values bound a sample
// (the limiter's range), the corrected and clamped result, and the adjoint of that correction.
// Every sample is independent, so each runs as a parallel loop over the samples.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/parallel.hpp"

namespace simgrad::fluid {

// MacCormack's two semi-Lagrangian passes over one quantity: the forward field, the round trip
// and the limiter's bounds.
struct MacCormackPasses {
  std::vector<double> forth, back;
  std::vector<std::int32_t> lowest, highest;
};

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
// switches.
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

// How many advect calls can keep their passes at once (a 3D step's three velocity components,
// density and temperature), and the number that keeps none.
inline constexpr int kKeptPasses = 5;
inline constexpr int kKeepNone = -1;

// An advector's MacCormack passes: its own, and those that advect calls kept by number. A step's
// adjoint that replays advection keeps them there, so that the advection's adjoint does not
// trace them a second time. Also the scheme itself, over an advector's semi-Lagrangian step:
// trace(q, dt, out, lowest, highest) and its adjoint trace_adjoint(q, dt, dout, dq,
// extra_index, extra_value) (semi_lagrangian and semi_lagrangian_adjoint on one lattice).
class MacCormackStore {
 public:
  // out = MacCormack's corrected and clamped field of q on n samples; with `keep`, its passes
  // are kept under that number.
  template <class Trace>
  void advect(int keep, std::span<const double> q, double dt, std::span<double> out, const Trace& trace) {
    const std::size_t n = out.size();
    MacCormackPasses& p = for_advect(keep, n);
    trace_passes(q, dt, n, p, trace);
    maccormack_correct(q, std::span<const double>(p.forth.data(), n), std::span<const double>(p.back.data(), n),
                       p.lowest.data(), p.highest.data(), out);
  }
  // The adjoint of advect given d out (n samples), from the passes kept under `kept` or, with
  // kKeepNone, traced again; adds to dq and, through trace_adjoint, to the velocity's adjoint.
  template <class Trace, class TraceAdjoint>
  void advect_adjoint(int kept, std::span<const double> q, double dt, std::span<const double> dout, std::span<double> dq,
                      const Trace& trace, const TraceAdjoint& trace_adjoint) {
    const std::size_t n = dout.size();
    if (kept == kKeepNone) trace_passes(q, dt, n, for_advect(kKeepNone, n), trace);
    const MacCormackPasses& p = this->kept(kept, n);
    const std::span<const double> forth(p.forth.data(), n);
    for (auto* b : {&dforth_, &dback_, &extra_value_}) b->resize(std::max(b->size(), n));
    extra_index_.resize(std::max(extra_index_.size(), n));
    const std::span<double> dforth(dforth_.data(), n), dback(dback_.data(), n);
    maccormack_correct_adjoint(q, forth, p.back.data(), p.lowest.data(), p.highest.data(), dout, dforth.data(),
                               dback.data(), extra_index_.data(), extra_value_.data());
    trace_adjoint(forth, -dt, std::span<const double>(dback), dforth, nullptr, nullptr);
    trace_adjoint(q, dt, std::span<const double>(dforth), dq, extra_index_.data(), extra_value_.data());
  }

  // Passes for an advect call on n samples: those to keep under `keep`, or the store's own
  // (kKeepNone). Allocates only the first time, or when n grows.
  MacCormackPasses& for_advect(int keep, std::size_t n) {
    MacCormackPasses& p = at(keep);
    if (p.forth.size() < n) {
      for (auto* b : {&p.forth, &p.back}) b->resize(n);
      for (auto* b : {&p.lowest, &p.highest}) b->resize(n);
    }
    return p;
  }
  // The passes an advect call on n samples kept under `kept` (kKeepNone: the store's own, as
  // last traced); throws if none were.
  const MacCormackPasses& kept(int kept, std::size_t n) {
    const MacCormackPasses& p = at(kept);
    if (p.forth.size() < n)
      throw std::logic_error("no MacCormack passes were kept under " + std::to_string(kept));
    return p;
  }

 private:
  MacCormackPasses& at(int slot) {
    if (slot < kKeepNone || slot >= kKeptPasses)
      throw std::out_of_range("no MacCormack passes can be kept under " + std::to_string(slot));
    return slot == kKeepNone ? own_ : kept_[static_cast<std::size_t>(slot)];
  }

  // MacCormack's two semi-Lagrangian passes over q into p.
  template <class Trace>
  static void trace_passes(std::span<const double> q, double dt, std::size_t n, MacCormackPasses& p, const Trace& trace) {
    const std::span<double> forth(p.forth.data(), n);
    trace(q, dt, forth, p.lowest.data(), p.highest.data());
    trace(std::span<const double>(forth), -dt, std::span<double>(p.back.data(), n), nullptr, nullptr);
  }

  MacCormackPasses own_;
  std::array<MacCormackPasses, kKeptPasses> kept_;
  // The adjoint's: of the forward and round-trip fields, and what q receives directly.
  std::vector<double> dforth_, dback_, extra_value_;
  std::vector<std::int32_t> extra_index_;
};

}  // namespace simgrad::fluid
