// Gradient check: reverse-mode gradients against central finite differences.
//
// For each checked direction d (a unit coordinate, or a random unit direction for large
// parameter vectors) the directional derivative g . d is compared with
// (f(x + h d) - f(x - h d)) / 2h. A check passes when |ad - fd| <= atol + rtol max(|ad|, |fd|)
// and, where the derivative is clearly non-zero (|fd| > atol), ad and fd have the same sign.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace simgrad {

struct GradCheckOptions {
  double step = 1e-6;      // relative: h = step * max(1, |x_i|) for coordinates
  double rtol = 1e-4;
  double atol = 1e-9;
  int random_directions = 0;  // 0: one check per coordinate
  std::uint64_t seed = 1;
};

struct GradCheckEntry {
  std::string label;  // parameter name and component, or "direction k"
  double ad = 0.0;
  double fd = 0.0;
  double rel_error = 0.0;
  bool ok = false;
};

struct GradCheckReport {
  bool ok = true;
  std::vector<GradCheckEntry> checks;
};

// Checks `gradient` (the reverse-mode gradient of f at x). Labels name the coordinates (empty:
// "x[i]").
GradCheckReport check_gradient(const std::function<double(std::span<const double>)>& f, std::span<const double> x,
                               std::span<const double> gradient, const GradCheckOptions& options = {},
                               std::span<const std::string> labels = {});

// Whether a single pair of derivatives agrees under the options' tolerances and sign rule.
bool derivatives_agree(double ad, double fd, const GradCheckOptions& options);

}  // namespace simgrad
