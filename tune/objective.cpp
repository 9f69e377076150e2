#include "tune/objective.hpp"

#include <algorithm>
#include <limits>

#include "tune/batch.hpp"

namespace simgrad::tune {

void Objective::values(std::span<const double> points, std::span<double> losses) {
  const std::size_t n = dimension();
  batch_executor().run(losses.size(), 1, losses, [&](std::size_t i, std::span<double> row) {
    row[0] = value(points.subspan(i * n, n));
  });
}

bool Objective::residuals_batch(std::span<const double> points, std::size_t width, std::span<double> rows) {
  // A row is whether the loss is a sum of squares, then the residuals.
  const std::size_t n = dimension(), count = rows.size() / width;
  std::vector<double> results(count * (1 + width));
  std::vector<double> residual;
  batch_executor().run(count, 1 + width, results, [&](std::size_t i, std::span<double> row) {
    row[0] = residuals(points.subspan(i * n, n), residual) ? 1.0 : 0.0;
    copy_residuals(residual, row.subspan(1));
  });
  for (std::size_t i = 0; i < count; ++i) {
    if (results[i * (1 + width)] == 0.0) return false;
    std::copy_n(results.begin() + std::ptrdiff_t(i * (1 + width) + 1), width, rows.begin() + std::ptrdiff_t(i * width));
  }
  return true;
}

void copy_residuals(std::span<const double> residuals, std::span<double> row) {
  if (residuals.size() == row.size()) {
    std::copy(residuals.begin(), residuals.end(), row.begin());
  } else {
    std::fill(row.begin(), row.end(), std::numeric_limits<double>::infinity());
  }
}

}  // namespace simgrad::tune
