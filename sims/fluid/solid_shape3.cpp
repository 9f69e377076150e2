#include "sims/fluid/solid_shape3.hpp"

#include <cmath>

namespace simgrad::fluid {

bool SolidShape3::contains(const std::array<double, 3>& p) const {
  if (kind == kBox) return p[0] >= v[0] && p[0] <= v[3] && p[1] >= v[1] && p[1] <= v[4] && p[2] >= v[2] && p[2] <= v[5];
  if (kind == kSphere) return std::hypot(p[0] - v[0], p[1] - v[1], p[2] - v[2]) <= v[3];
  const std::size_t a = static_cast<std::size_t>(axis), b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
  return p[a] >= v[3] && p[a] <= v[4] && std::hypot(p[b] - v[0], p[c] - v[1]) <= v[2];
}

std::vector<std::uint8_t> solid_mask(const Grid3& g, const std::vector<SolidShape3>& shapes) {
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(g.cells()), 0);
  const Lattice3 cl = g.cell_lattice();
  for (Index c = 0; c < g.cells(); ++c) {
    const std::array<int, 3> ijk = cl.coordinates(c);
    const std::array<double, 3> p = {(ijk[0] + 0.5) * g.h(), (ijk[1] + 0.5) * g.h(), (ijk[2] + 0.5) * g.h()};
    for (const SolidShape3& s : shapes)
      if (s.contains(p)) mask[static_cast<std::size_t>(c)] = 1;
  }
  return mask;
}

}  // namespace simgrad::fluid
