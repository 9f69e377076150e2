#include "report/animation.hpp"

namespace simgrad::report {

void Animation::add_frame(double time, std::span<const double> state) {
  times.push_back(time);
  const auto values = state.first(static_cast<std::size_t>(point_count * dimension));
  positions.insert(positions.end(), values.begin(), values.end());
}

std::array<double, 3> Animation::point(int frame, Index i) const {
  const std::size_t at = (static_cast<std::size_t>(frame) * static_cast<std::size_t>(point_count) + static_cast<std::size_t>(i)) *
                         static_cast<std::size_t>(dimension);
  std::array<double, 3> p{0.0, 0.0, 0.0};
  for (int k = 0; k < dimension; ++k) p[static_cast<std::size_t>(k)] = positions[at + static_cast<std::size_t>(k)];
  return p;
}

}  // namespace simgrad::report
