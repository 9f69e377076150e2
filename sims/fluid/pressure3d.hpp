// Pressure projection on the 3D MAC grid, as in 2D (pressure.hpp): A p = -h^2 div u with A the
// 7-point Laplacian over the faces that are not walls, solved by conjugate gradients
// preconditioned with MIC(0) (tau 0.97, the periodic wrap couplings left out of the factor) to
// a relative residual tolerance, whose adjoint is one more solve with the same symmetric matrix
// (implicit differentiation); or by a fixed number of Jacobi sweeps from zero, a symmetric
// linear map of the right-hand side, so the exact adjoint of the unrolled sweeps is the same
// sweeps. Faces on open sides may scale their pressure-gradient correction by g in [0, 1], as in
// 2D (Projection::set_open_face_scale), for boundary vents on open sides. With no open side A
// is singular and both solves work on the mean-free part over the fluid cells. Deterministic: dot products sum fixed blocks in order,
// the triangular solves run in cell order, and every other operator is a gather.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "sims/fluid/fields.hpp"
#include "sims/fluid/grid3d.hpp"
#include "sims/fluid/pressure_solve.hpp"

namespace simgrad::fluid {

class Projection3 : public PressureSolve<Projection3> {
 public:
  Projection3(const Grid3& grid, PressureSettings settings);

  // Makes the velocity divergence-free in place; walls keep their velocity.
  void project(const Velocity3& velocity);
  // The adjoint of project, in place.
  void project_adjoint(const Velocity3& adjoint);
  // The net outflow of every cell over h (zero in solid cells).
  void divergence(const ConstVelocity3& velocity, std::span<double> out) const;

  // Scales the pressure-gradient correction of the faces on open sides, one entry per face (axis
  // by axis, as the state stores them; entries of other faces unread); empty: every scale is
  // one. Rebuilds the matrix and its preconditioner.
  void set_open_face_scale(std::span<const double> scale);

 private:
  friend class PressureSolve<Projection3>;
  void jacobi(std::span<const double> b, std::span<double> x);
  // The sum of x over the cells coupled to cell c.
  double coupled_sum(std::span<const double> x, Index c) const;
  void apply_matrix(std::span<const double> x, std::span<double> out) const;
  void apply_preconditioner(std::span<const double> r, std::span<double> z);
  // x minus its mean over the fluid cells.
  void remove_mean(std::span<double> x);
  void build();
  // The pressure-gradient scale of face f of axis a.
  double face_scale(int a, Index f) const {
    return open_scale_.empty() ? 1.0 : open_scale_[static_cast<std::size_t>(face_offset_[static_cast<std::size_t>(a)] + f)];
  }

  const Grid3* grid_;
  std::array<Index, 3> stride_{};
  std::vector<double> diagonal_;                      // per cell; 1 in solid cells
  std::vector<double> inverse_diagonal_;              // 1 / diagonal; 0 where that is 0 (Jacobi)
  std::array<std::vector<std::uint8_t>, 3> coupled_;  // coupling with the next cell along each axis (wrapping)
  std::vector<double> precon_;                        // MIC(0) inverse square-root pivots
  std::array<Index, 3> face_offset_{};
};

}  // namespace simgrad::fluid
