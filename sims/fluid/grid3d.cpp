#include "sims/fluid/grid3d.hpp"

#include <stdexcept>
#include <string>

namespace simgrad::fluid {

Grid3::Grid3(std::array<int, 3> n, double h, std::array<Side, 6> sides) : n_(n), h_(h), sides_(sides) {
  for (int a = 0; a < 3; ++a) {
    if (n_[static_cast<std::size_t>(a)] < 2) throw std::invalid_argument("a 3D fluid grid needs at least 2 x 2 x 2 cells");
    if ((side(2 * a) == Side::kPeriodic) != (side(2 * a + 1) == Side::kPeriodic))
      throw std::invalid_argument("a periodic side needs its opposite side periodic too");
  }
  if (!(h > 0.0)) throw std::invalid_argument("a fluid grid needs a cell size > 0");
  solid_.assign(static_cast<std::size_t>(cells()), 0);
  find_walls();
}

void Grid3::set_solid(std::vector<std::uint8_t> solid) {
  if (static_cast<Index>(solid.size()) != cells())
    throw std::invalid_argument("solid mask has " + std::to_string(solid.size()) + " entries, expected one per cell");
  solid_ = std::move(solid);
  find_walls();
}

bool Grid3::has_open_side() const {
  for (Side s : sides_)
    if (s == Side::kOpen) return true;
  return false;
}

Lattice3 Grid3::cell_lattice() const { return {{0.5, 0.5, 0.5}, n_, {periodic(0), periodic(1), periodic(2)}}; }

Lattice3 Grid3::face_lattice(int a) const {
  Lattice3 l = cell_lattice();
  const std::size_t as = static_cast<std::size_t>(a);
  l.offset[as] = 0.0;
  if (!periodic(a)) ++l.count[as];
  return l;
}

Index Grid3::lower_cell(int a, std::array<int, 3> ijk) const {
  int& x = ijk[static_cast<std::size_t>(a)];
  if (x == 0) {
    if (!periodic(a)) return -1;
    x = n(a);
  }
  --x;
  return cell(ijk[0], ijk[1], ijk[2]);
}

Index Grid3::upper_cell(int a, std::array<int, 3> ijk) const {
  return ijk[static_cast<std::size_t>(a)] == n(a) ? -1 : cell(ijk[0], ijk[1], ijk[2]);
}

Index Grid3::high_face(int a, std::array<int, 3> ijk) const {
  const Lattice3 l = face_lattice(a);
  int& x = ijk[static_cast<std::size_t>(a)];
  x = x + 1 == l.count[static_cast<std::size_t>(a)] && periodic(a) ? 0 : x + 1;
  return l.index(ijk[0], ijk[1], ijk[2]);
}

void Grid3::find_walls() {
  for (int a = 0; a < 3; ++a) {
    const Lattice3 l = face_lattice(a);
    std::vector<std::uint8_t>& w = wall_[static_cast<std::size_t>(a)];
    w.assign(static_cast<std::size_t>(l.size()), 0);
    for (Index f = 0; f < l.size(); ++f) {
      const std::array<int, 3> ijk = l.coordinates(f);
      const Index lo = lower_cell(a, ijk), up = upper_cell(a, ijk);
      const Side outside = side(2 * a + (lo < 0 ? 0 : 1));
      if (lo < 0 || up < 0) w[static_cast<std::size_t>(f)] = outside == Side::kClosed || solid(lo < 0 ? up : lo);
      else w[static_cast<std::size_t>(f)] = solid(lo) || solid(up);
    }
  }
}

}  // namespace simgrad::fluid
