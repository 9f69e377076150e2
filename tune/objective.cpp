#include "tune/objective.hpp"

#include "tune/batch.hpp"

namespace simgrad::tune {

void Objective::values(std::span<const double> points, std::span<double> losses) {
  const std::size_t n = dimension();
  batch_executor().run(losses.size(), 1, losses, [&](std::size_t i, std::span<double> row) {
    row[0] = value(points.subspan(i * n, n));
  });
}

}  // namespace simgrad::tune
