// Obstacles, regions and starting smoke of a 2D grid from a list of shapes: axis-aligned boxes
// and circles (solid_shape3.hpp has the 3D ones). A cell is inside when its centre lies in a
// shape (on its edge included).
#pragma once

#include <cstdint>
#include <vector>

#include "sims/fluid/grid.hpp"

namespace simgrad::fluid {

struct SolidShape {
  bool circle = false;   // v = [x, y, r]
  std::vector<double> v;  // a box: v = [x0, y0, x1, y1]

  bool contains(double x, double y) const;
};

// One flag per cell whose centre lies in any of the shapes.
std::vector<std::uint8_t> solid_mask(const Grid& g, const std::vector<SolidShape>& shapes);

}  // namespace simgrad::fluid
