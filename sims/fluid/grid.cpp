#include "sims/fluid/grid.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace simgrad::fluid {

Grid::Grid(int nx, int ny, double h, Side x_low, Side x_high, Side y_low, Side y_high)
    : nx_(nx), ny_(ny), h_(h), sides_{x_low, x_high, y_low, y_high} {
  if (nx < 2 || ny < 2) throw std::invalid_argument("a fluid grid needs at least 2 x 2 cells");
  if (!(h > 0.0)) throw std::invalid_argument("a fluid grid needs a cell size > 0");
  if ((x_low == Side::kPeriodic) != (x_high == Side::kPeriodic) || (y_low == Side::kPeriodic) != (y_high == Side::kPeriodic))
    throw std::invalid_argument("a periodic side needs its opposite side periodic too");
  solid_.assign(static_cast<std::size_t>(cells()), 0);
  find_walls();
}

void Grid::set_solid(std::vector<std::uint8_t> solid) {
  if (static_cast<Index>(solid.size()) != cells())
    throw std::invalid_argument("solid mask has " + std::to_string(solid.size()) + " entries, expected one per cell");
  solid_ = std::move(solid);
  find_walls();
}

bool Grid::has_open_side() const {
  for (Side s : sides_)
    if (s == Side::kOpen) return true;
  return false;
}

Index Grid::u_left(int i, int j) const {
  if (i == 0) return periodic_x() ? cell(nx_ - 1, j) : -1;
  return cell(i - 1, j);
}

Index Grid::u_right(int i, int j) const { return i == nx_ ? -1 : cell(i, j); }

Index Grid::v_below(int i, int j) const {
  if (j == 0) return periodic_y() ? cell(i, ny_ - 1) : -1;
  return cell(i, j - 1);
}

Index Grid::v_above(int i, int j) const { return j == ny_ ? -1 : cell(i, j); }

void Grid::find_walls() {
  u_wall_.assign(static_cast<std::size_t>(u_count()), 0);
  v_wall_.assign(static_cast<std::size_t>(v_count()), 0);
  auto is_wall = [&](Index a, Index b, Side outside) {
    if (a < 0 || b < 0) return outside == Side::kClosed || (a < 0 ? solid(b) : solid(a));
    return solid(a) || solid(b);
  };
  for (int j = 0; j < ny_; ++j)
    for (int i = 0; i < u_columns(); ++i)
      u_wall_[static_cast<std::size_t>(u_face(i, j))] = is_wall(u_left(i, j), u_right(i, j), i == 0 ? sides_[0] : sides_[1]);
  for (int j = 0; j < v_rows(); ++j)
    for (int i = 0; i < nx_; ++i)
      v_wall_[static_cast<std::size_t>(v_face(i, j))] = is_wall(v_below(i, j), v_above(i, j), j == 0 ? sides_[2] : sides_[3]);
  auto any = [](const std::vector<std::uint8_t>& flags) { return std::find(flags.begin(), flags.end(), 1) != flags.end(); };
  has_walls_ = any(u_wall_) || any(v_wall_);
}

}  // namespace simgrad::fluid
