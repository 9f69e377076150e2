// The staggered (MAC) grid of a 2D smoke simulation: cell-centred scalars (pressure, density,
// temperature), x-velocities on the faces between horizontal neighbours, y-velocities on the
// faces between vertical neighbours. Each side of the domain is closed (a wall: zero normal
// velocity), open (pressure zero outside: flow may leave or enter) or periodic (with its
// opposite side). Static solid cells come from a mask; faces next to them are walls too.
//
// Layout: cell (i, j) at index j nx + i, centred at ((i + 1/2) h, (j + 1/2) h). The x-face (i, j)
// lies on the left of cell (i, j), at (i h, (j + 1/2) h); along a periodic x-axis there are nx
// faces per row (face 0 is also the right side of cell nx - 1), otherwise nx + 1. The y-faces
// follow the same rule with the axes swapped.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/vec.hpp"

namespace simgrad::fluid {

enum class Side : std::uint8_t { kClosed, kOpen, kPeriodic };

// Bilinear sampling of one staggered component: its sample points sit at ((i + ox) h,
// (j + oy) h) for i < cx, j < cy; a periodic axis wraps, others clamp to the outermost samples.
struct Lattice {
  double ox = 0.0, oy = 0.0;
  int cx = 0, cy = 0;
  bool wrap_x = false, wrap_y = false;
};

// The four samples around a point and their weights, plus the weights' derivatives in x and y
// (per unit length), for the adjoint of the sample position.
struct Stencil {
  Index index[4];
  double weight[4];
  double dweight_dx[4];
  double dweight_dy[4];
};

// Fractional lattice coordinate along one axis: the lower sample, the fraction and whether the
// position was clamped (then the value does not move with the position).
SIMGRAD_HD_INLINE void locate(double g, int count, bool wrap, int& i0, int& i1, double& f, bool& clamped) {
  clamped = false;
  if (wrap) {
    // Traced-back points lie within a few periods: a loop beats an integer division. Far-off
    // or non-finite points (a diverging run, reported after the step) are folded first.
    if (!(std::abs(g) < 1e6)) g = g == g ? std::fmod(g, count) : 0.0;
    // floor by truncation: without SSE4.1, std::floor is a library call.
    long k = static_cast<long>(g);
    if (g < static_cast<double>(k)) --k;
    f = g - static_cast<double>(k);
    while (k < 0) k += count;
    while (k >= count) k -= count;
    i0 = static_cast<int>(k);
    i1 = i0 + 1 == count ? 0 : i0 + 1;
    return;
  }
  if (!(g > 0.0) || count == 1) {
    i0 = i1 = 0;
    f = 0.0;
    clamped = true;
    return;
  }
  if (g >= count - 1) {
    i0 = i1 = count - 1;
    f = 0.0;
    clamped = true;
    return;
  }
  i0 = static_cast<int>(g);  // g > 0: truncation is floor
  i1 = i0 + 1;
  f = g - i0;
}

// The bilinear stencil of lattice `l` at the point (x, y) (in length units, cell size h); the
// derivative weights only when `kDerivatives` (forward passes skip them).
template <bool kDerivatives = true>
SIMGRAD_HD_INLINE Stencil stencil_at(const Lattice& l, double h, double x, double y) {
  int i0, i1, j0, j1;
  double fx, fy;
  bool cx_clamped, cy_clamped;
  locate(x / h - l.ox, l.cx, l.wrap_x, i0, i1, fx, cx_clamped);
  locate(y / h - l.oy, l.cy, l.wrap_y, j0, j1, fy, cy_clamped);
  const double dx = cx_clamped ? 0.0 : 1.0 / h, dy = cy_clamped ? 0.0 : 1.0 / h;
  Stencil s{};
  s.index[0] = static_cast<Index>(j0) * l.cx + i0;
  s.index[1] = static_cast<Index>(j0) * l.cx + i1;
  s.index[2] = static_cast<Index>(j1) * l.cx + i0;
  s.index[3] = static_cast<Index>(j1) * l.cx + i1;
  s.weight[0] = (1 - fx) * (1 - fy);
  s.weight[1] = fx * (1 - fy);
  s.weight[2] = (1 - fx) * fy;
  s.weight[3] = fx * fy;
  if constexpr (!kDerivatives) return s;
  s.dweight_dx[0] = -(1 - fy) * dx;
  s.dweight_dx[1] = (1 - fy) * dx;
  s.dweight_dx[2] = -fy * dx;
  s.dweight_dx[3] = fy * dx;
  s.dweight_dy[0] = -(1 - fx) * dy;
  s.dweight_dy[1] = -fx * dy;
  s.dweight_dy[2] = (1 - fx) * dy;
  s.dweight_dy[3] = fx * dy;
  return s;
}

// The stencil's value on a field.
SIMGRAD_HD inline double apply(const Stencil& s, const double* field) {
  return s.weight[0] * field[s.index[0]] + s.weight[1] * field[s.index[1]] + s.weight[2] * field[s.index[2]] +
         s.weight[3] * field[s.index[3]];
}

class Grid {
 public:
  static constexpr int kDimension = 2;

  // A grid of nx x ny cells of size h; sides in the order x low, x high, y low, y high (a
  // periodic axis has both its sides periodic). No solids.
  Grid(int nx, int ny, double h, Side x_low, Side x_high, Side y_low, Side y_high);
  Grid() = default;

  // Marks solid cells (one flag per cell) and recomputes which faces are walls.
  void set_solid(std::vector<std::uint8_t> solid);

  int nx() const { return nx_; }
  int ny() const { return ny_; }
  double h() const { return h_; }
  Side side(int s) const { return sides_[s]; }
  bool periodic_x() const { return sides_[0] == Side::kPeriodic; }
  bool periodic_y() const { return sides_[2] == Side::kPeriodic; }
  // Whether some side is open: then the pressure equation has a unique solution.
  bool has_open_side() const;

  Index cells() const { return static_cast<Index>(nx_) * ny_; }
  int u_columns() const { return periodic_x() ? nx_ : nx_ + 1; }
  int v_rows() const { return periodic_y() ? ny_ : ny_ + 1; }
  Index u_count() const { return static_cast<Index>(u_columns()) * ny_; }
  Index v_count() const { return static_cast<Index>(nx_) * v_rows(); }
  Index face_count() const { return u_count() + v_count(); }
  // The faces normal to axis a (0: x-faces, 1: y-faces), as the 3D grid names them.
  Index face_count(int a) const { return a == 0 ? u_count() : v_count(); }
  Index cell(int i, int j) const { return static_cast<Index>(j) * nx_ + i; }
  Index u_face(int i, int j) const { return static_cast<Index>(j) * u_columns() + i; }
  Index v_face(int i, int j) const { return static_cast<Index>(j) * nx_ + i; }

  bool solid(Index c) const { return solid_[static_cast<std::size_t>(c)] != 0; }
  // Whether a face's normal velocity is prescribed (a closed side or next to a solid).
  bool u_wall(Index f) const { return u_wall_[static_cast<std::size_t>(f)] != 0; }
  bool v_wall(Index f) const { return v_wall_[static_cast<std::size_t>(f)] != 0; }
  bool wall(int a, Index f) const { return a == 0 ? u_wall(f) : v_wall(f); }
  // Whether any face is a wall (not so on a grid periodic along both axes without solids).
  bool has_walls() const { return has_walls_; }

  // The cells on either side of x-face (i, j): left and right, -1 outside the domain.
  Index u_left(int i, int j) const;
  Index u_right(int i, int j) const;
  Index v_below(int i, int j) const;
  Index v_above(int i, int j) const;
  // Faces of cell (i, j): left, right, bottom, top.
  Index right_face(int i, int j) const { return u_face(i + 1 == u_columns() ? 0 : i + 1, j); }
  Index top_face(int i, int j) const { return v_face(i, j + 1 == v_rows() ? 0 : j + 1); }

  Lattice cell_lattice() const { return {0.5, 0.5, nx_, ny_, periodic_x(), periodic_y()}; }
  Lattice u_lattice() const { return {0.0, 0.5, u_columns(), ny_, periodic_x(), periodic_y()}; }
  Lattice v_lattice() const { return {0.5, 0.0, nx_, v_rows(), periodic_x(), periodic_y()}; }
  Lattice face_lattice(int a) const { return a == 0 ? u_lattice() : v_lattice(); }

  // The domain's size.
  double width() const { return nx_ * h_; }
  double height() const { return ny_ * h_; }

 private:
  void find_walls();

  int nx_ = 0, ny_ = 0;
  double h_ = 1.0;
  Side sides_[4] = {Side::kClosed, Side::kClosed, Side::kClosed, Side::kClosed};
  std::vector<std::uint8_t> solid_, u_wall_, v_wall_;
  bool has_walls_ = false;
};

}  // namespace simgrad::fluid
