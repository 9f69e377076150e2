// Diagnostics that travel with a gradient: where a value first went non-finite.
#pragma once

#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "core/parallel.hpp"
#include "core/vec.hpp"

namespace simgrad {

// Raised when a kernel produces a non-finite value (forward) or adjoint (backward). It names the
// kernel, the element and, once the rollout has caught it, the step, so a NaN is an error the
// user can act on instead of a NaN loss.
class NonFiniteError : public std::runtime_error {
 public:
  NonFiniteError(std::string kernel, Index element, bool in_adjoint, int step = -1)
      : std::runtime_error(describe(kernel, element, in_adjoint, step)),
        kernel_(std::move(kernel)),
        element_(element),
        in_adjoint_(in_adjoint),
        step_(step) {}

  const std::string& kernel() const { return kernel_; }
  Index element() const { return element_; }
  bool in_adjoint() const { return in_adjoint_; }
  int step() const { return step_; }

  // The same error with the step it happened in.
  NonFiniteError at_step(int step) const { return {kernel_, element_, in_adjoint_, step}; }

 private:
  static std::string describe(const std::string& kernel, Index element, bool in_adjoint, int step) {
    std::string where = step >= 0 ? "step " + std::to_string(step) + ", " : "";
    return std::string("non-finite ") + (in_adjoint ? "adjoint" : "value") + " at " + where +
           "kernel " + kernel + (element >= 0 ? ", element " + std::to_string(element) : ", on another process");
  }

  std::string kernel_;
  Index element_;
  bool in_adjoint_;
  int step_;
};

// Records the lowest element index at which something went non-finite, across blocks.
class FirstNonFinite {
 public:
  static constexpr Index kNone = std::numeric_limits<Index>::max();

  // Notes element e (blocks may report in any order; the minimum wins).
  void note(Index e) {
#pragma omp critical(simgrad_first_non_finite)
    if (e < first_) first_ = e;
  }
  bool any() const { return first_ != kNone; }
  // Throws if anything was noted.
  void raise_if_any(const std::string& kernel, bool in_adjoint) const {
    if (first_ != kNone) throw NonFiniteError(kernel, first_, in_adjoint);
  }

 private:
  Index first_ = kNone;
};

// Throws NonFiniteError naming `kernel` and the first element of `values` that is not finite,
// if there is one. Blocks in parallel; in each, the common case, all finite, is one pass that
// vectorises: x - x is +0 for a finite x and NaN otherwise, and four running sums of those are
// +0 only if every x is finite (std::isfinite in a loop with an early exit does not vectorise).
inline void check_finite(std::span<const double> values, const char* kernel, bool in_adjoint) {
  FirstNonFinite bad;
  parallel_for_blocks(static_cast<Index>(values.size()), [&](Index first, Index last) {
    const double* v = values.data();
    double sums[4] = {0.0, 0.0, 0.0, 0.0};
    Index k = first;
    for (; k + 4 <= last; k += 4)
      for (Index l = 0; l < 4; ++l) sums[l] += v[k + l] - v[k + l];
    for (; k < last; ++k) sums[0] += v[k] - v[k];
    if ((sums[0] + sums[1]) + (sums[2] + sums[3]) == 0.0) return;
    k = first;
    while (std::isfinite(v[k])) ++k;
    bad.note(k);
  });
  bad.raise_if_any(kernel, in_adjoint);
}

}  // namespace simgrad
