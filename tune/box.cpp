#include "tune/box.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace simgrad::tune {

void project_onto_box(std::span<double> x, std::span<const double> lower,
                      std::span<const double> upper) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::clamp(x[i], lower[i], upper[i]);
}

bool inside_box(std::span<const double> x, std::span<const double> lower,
                std::span<const double> upper) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] >= lower[i] && x[i] <= upper[i])) return false;
  }
  return true;
}

double projected_gradient_norm(std::span<const double> x, std::span<const double> gradient,
                               std::span<const double> lower, std::span<const double> upper) {
  double norm = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double moved = std::clamp(x[i] - gradient[i], lower[i], upper[i]) - x[i];
    if (std::isnan(moved)) return moved;  // a NaN gradient must never read as converged
    norm = std::max(norm, std::fabs(moved));
  }
  return norm;
}

bool blocked_by_bound(double x, double gradient, double lower, double upper) {
  return (x <= lower && gradient > 0) || (x >= upper && gradient < 0);
}

bool all_finite(std::span<const double> bounds) {
  return std::all_of(bounds.begin(), bounds.end(), [](double b) { return std::isfinite(b); });
}

}  // namespace simgrad::tune
