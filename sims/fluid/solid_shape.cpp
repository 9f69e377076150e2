#include "sims/fluid/solid_shape.hpp"

#include <cmath>

namespace simgrad::fluid {

bool SolidShape::contains(double x, double y) const {
  if (circle) return std::hypot(x - v[0], y - v[1]) <= v[2];
  return x >= v[0] && x <= v[2] && y >= v[1] && y <= v[3];
}

std::vector<std::uint8_t> solid_mask(const Grid& g, const std::vector<SolidShape>& shapes) {
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(g.cells()), 0);
  for (int j = 0; j < g.ny(); ++j)
    for (int i = 0; i < g.nx(); ++i)
      for (const SolidShape& s : shapes)
        if (s.contains((i + 0.5) * g.h(), (j + 0.5) * g.h())) mask[static_cast<std::size_t>(g.cell(i, j))] = 1;
  return mask;
}

}  // namespace simgrad::fluid
