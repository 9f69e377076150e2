// Static obstacles of a 3D grid from a list of shapes, the 3D counterparts of 2D's boxes and
// circles: axis-aligned boxes, spheres and axis-aligned cylinders. A cell is solid when its
// centre lies in a shape (on its surface included).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sims/fluid/grid3d.hpp"

namespace simgrad::fluid {

struct SolidShape3 {
  // kBox: v = [x0, y0, z0, x1, y1, z1]; kSphere: v = [x, y, z, r]; kCylinder: v = [a, b, r, lo,
  // hi], its centre (a, b) over the two axes other than `axis` in increasing order, its radius
  // and its extent along `axis`.
  enum Kind { kBox, kSphere, kCylinder } kind = kBox;
  std::vector<double> v;
  int axis = 1;

  bool contains(const std::array<double, 3>& p) const;
};

// One flag per cell whose centre lies in any of the shapes.
std::vector<std::uint8_t> solid_mask(const Grid3& g, const std::vector<SolidShape3>& shapes);

}  // namespace simgrad::fluid
