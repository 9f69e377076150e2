// The staggered (MAC) grid of a 3D smoke simulation, the 3D counterpart of grid.hpp: cell-centred
// scalars, and on the faces normal to each axis a the velocity component along a. Sides are
// closed, open or periodic as in 2D (Side), in the order x low, x high, y low, y high, z low,
// z high; solid cells come from a mask and make the faces next to them walls. y points up.
//
// Layout: cell (i, j, k) at index (k ny + j) nx + i, centred at ((i, j, k) + 1/2) h. The faces
// normal to axis a form a lattice like the cells', shifted by -h/2 along a and with one more
// layer along a unless a is periodic; face (i, j, k) of axis a lies on the low side of cell
// (i, j, k). Code runs over the three face kinds by axis rather than spelling out u, v and w.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sims/fluid/grid.hpp"

namespace simgrad::fluid {

// Trilinear sampling of one staggered component: samples at ((i, j, k) + offset) h for
// (i, j, k) < count; a periodic axis wraps, others clamp to the outermost samples.
struct Lattice3 {
  std::array<double, 3> offset{};
  std::array<int, 3> count{};
  std::array<bool, 3> wrap{};

  Index size() const { return static_cast<Index>(count[0]) * count[1] * count[2]; }
  // The lattice coordinates of sample s.
  std::array<int, 3> coordinates(Index s) const {
    return {static_cast<int>(s % count[0]), static_cast<int>(s / count[0] % count[1]),
            static_cast<int>(s / count[0] / count[1])};
  }
  Index index(int i, int j, int k) const { return (static_cast<Index>(k) * count[1] + j) * count[0] + i; }
};

// The eight samples around a point, their weights and the weights' derivatives along each axis
// (per unit length), for the adjoint of the sample position.
struct Stencil3 {
  Index index[8];
  double weight[8];
  double dweight[3][8];
};

// The trilinear stencil of lattice `l` at point p (length units, cell size h); derivative
// weights only when `kDerivatives`.
template <bool kDerivatives = true>
inline Stencil3 stencil_at(const Lattice3& l, double h, const std::array<double, 3>& p) {
  int lo[3], hi[3];
  double f[3], d[3];
  for (int a = 0; a < 3; ++a) {
    bool clamped;
    locate(p[a] / h - l.offset[a], l.count[a], l.wrap[a], lo[a], hi[a], f[a], clamped);
    d[a] = clamped ? 0.0 : 1.0 / h;
  }
  Stencil3 s{};
  for (int m = 0; m < 8; ++m) {
    const int bit[3] = {m & 1, (m >> 1) & 1, (m >> 2) & 1};
    s.index[m] = l.index(bit[0] ? hi[0] : lo[0], bit[1] ? hi[1] : lo[1], bit[2] ? hi[2] : lo[2]);
    double w[3];
    for (int a = 0; a < 3; ++a) w[a] = bit[a] ? f[a] : 1.0 - f[a];
    s.weight[m] = w[0] * w[1] * w[2];
    if constexpr (kDerivatives) {
      s.dweight[0][m] = (bit[0] ? d[0] : -d[0]) * w[1] * w[2];
      s.dweight[1][m] = w[0] * (bit[1] ? d[1] : -d[1]) * w[2];
      s.dweight[2][m] = w[0] * w[1] * (bit[2] ? d[2] : -d[2]);
    }
  }
  return s;
}

// The stencil's value on a field.
inline double apply(const Stencil3& s, const double* field) {
  double v = 0.0;
  for (int m = 0; m < 8; ++m) v += s.weight[m] * field[s.index[m]];
  return v;
}

// The derivative of the stencil's value along axis a.
inline double derivative(const Stencil3& s, int a, const double* field) {
  double v = 0.0;
  for (int m = 0; m < 8; ++m) v += s.dweight[a][m] * field[s.index[m]];
  return v;
}

class Grid3 {
 public:
  static constexpr int kDimension = 3;

  // A grid of n[0] x n[1] x n[2] cells of size h; sides as above (a periodic axis has both its
  // sides periodic). No solids.
  Grid3(std::array<int, 3> n, double h, std::array<Side, 6> sides);
  Grid3() = default;

  // Marks solid cells (one flag per cell) and recomputes which faces are walls.
  void set_solid(std::vector<std::uint8_t> solid);

  int n(int a) const { return n_[static_cast<std::size_t>(a)]; }
  double h() const { return h_; }
  Side side(int s) const { return sides_[static_cast<std::size_t>(s)]; }
  bool periodic(int a) const { return side(2 * a) == Side::kPeriodic; }
  // Whether some side is open: then the pressure equation has a unique solution.
  bool has_open_side() const;
  // The domain's extent along axis a.
  double extent(int a) const { return n(a) * h_; }

  Index cells() const { return static_cast<Index>(n_[0]) * n_[1] * n_[2]; }
  Index cell(int i, int j, int k) const { return (static_cast<Index>(k) * n_[1] + j) * n_[0] + i; }
  Lattice3 cell_lattice() const;
  // The lattice of the faces normal to axis a.
  Lattice3 face_lattice(int a) const;
  Index face_count(int a) const { return face_lattice(a).size(); }
  // All faces: the state's velocity part, axis by axis.
  Index face_count() const { return face_count(0) + face_count(1) + face_count(2); }

  bool solid(Index c) const { return solid_[static_cast<std::size_t>(c)] != 0; }
  // Whether face f of axis a has a prescribed normal velocity (a closed side or a solid next to it).
  bool wall(int a, Index f) const { return wall_[static_cast<std::size_t>(a)][static_cast<std::size_t>(f)] != 0; }
  // The cells below and above face (i, j, k) of axis a, -1 outside the domain.
  Index lower_cell(int a, std::array<int, 3> ijk) const;
  Index upper_cell(int a, std::array<int, 3> ijk) const;
  // The face of axis a on the high side of cell (i, j, k) (wrapping along a periodic axis).
  Index high_face(int a, std::array<int, 3> ijk) const;
  Index low_face(int a, const std::array<int, 3>& ijk) const { return face_lattice(a).index(ijk[0], ijk[1], ijk[2]); }

 private:
  void find_walls();

  std::array<int, 3> n_{2, 2, 2};
  double h_ = 1.0;
  std::array<Side, 6> sides_{};
  std::vector<std::uint8_t> solid_;
  std::array<std::vector<std::uint8_t>, 3> wall_;
};

}  // namespace simgrad::fluid
