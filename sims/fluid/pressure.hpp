// Pressure projection: makes a velocity field discretely divergence-free by subtracting the
// gradient of a pressure that solves A p = -h (net outflow of each cell), A the 5-point
// Laplacian over the faces that are not walls (an open side adds the outside, where p = 0).
//
// Two solvers. Conjugate gradients preconditioned by modified incomplete Cholesky (MIC(0),
// tau 0.97, the periodic wrap couplings left out of the factor), to a relative residual
// tolerance; its adjoint is one more solve with the same (symmetric) matrix: implicit
// differentiation, no iterations unrolled. And a fixed number of Jacobi sweeps from zero, as in
// DiffTaichi's smoke example: K sweeps are a linear map J_K of the right-hand side, symmetric
// since A is, so the exact adjoint of the unrolled sweeps is the same K sweeps.
//
// A face on an open side may carry a scale g in [0, 1] on its pressure-gradient correction
// (set_open_face_scale): boundary vents on open sides blend the face between Dirichlet (g = 1,
// p = 0 outside) and Neumann (g = 0, the face keeps its prescribed velocity). The face's share
// of its cell's diagonal is then g, so A depends smoothly on the vents' footprint.
//
// With no open side A is singular (constant pressure); the right-hand side is made mean-free
// over the fluid cells first (operator P), and the adjoint applies P after its solve.
// Deterministic: dot products sum fixed blocks in order, the mean fixed bands of rows in order;
// triangular solves run in cell order.
#pragma once

#include <span>
#include <vector>

#include "core/row_slabs.hpp"
#include "sims/fluid/fields.hpp"
#include "sims/fluid/grid.hpp"
#include "sims/fluid/pressure_solve.hpp"

namespace simgrad::fluid {

class Projection : public PressureSolve<Projection> {
 public:
  Projection(const Grid& grid, PressureSettings settings);

  // Makes the velocity (u, v) divergence-free in place; walls keep their velocity.
  void project(const Velocity<2>& velocity);
  // The adjoint of project: (du, dv) <- P_proj^T (du, dv), in place.
  void project_adjoint(const Velocity<2>& adjoint);
  // The net outflow of every cell over h (the divergence; zero in solid cells).
  void divergence(const ConstVelocity<2>& velocity, std::span<double> out) const;

  // Scales the pressure-gradient correction of the faces on open sides, one entry per face (the
  // x-faces, then the y-faces; entries of other faces unread); empty: every scale is one.
  // Rebuilds the matrix and its preconditioner.
  void set_open_face_scale(std::span<const double> scale);

  // Splits the work over processes in slabs of rows (core/row_slabs.hpp; null: the whole grid
  // here): each computes its slab's rows and fetches the rows it reads across the slab's edges.
  // For Jacobi sweeps without open-face scales (what Smoke checks before it splits).
  void split(const RowSlabs* slabs) { slabs_ = slabs; }

 private:
  friend class PressureSolve<Projection>;
  void jacobi(std::span<const double> b, std::span<double> x);
  void apply_matrix(std::span<const double> x, std::span<double> out) const;
  // out[c] = the sum of x over the cells coupled to c, for the cells [first, last).
  void coupled_sums(std::span<const double> x, Index first, Index last, double* out) const;
  void apply_preconditioner(std::span<const double> r, std::span<double> z);
  void remove_mean(std::span<double> x);
  // The rows this process computes: its slab's, or all; of the x-faces (axis 0) or y-faces.
  RowRun own_rows() const { return rows_here(slabs_, grid_->ny()); }
  RowRun own_face_rows(int axis) const {
    return rows_here(slabs_, axis == 0 ? grid_->ny() : grid_->v_rows());
  }
  // The values of x (one a cell) in this process's rows.
  std::span<double> own_part(std::span<double> x) const { return rows_of(x, own_rows(), grid_->nx()); }
  // Copies the rows of x (one value a cell or y-face) below and above the slab from their owners,
  // across the grid's ends where `wrap`; nothing on the whole grid.
  void fill_halo(std::span<double> x, int below, int above, bool wrap) const {
    if (slabs_) slabs_->fill_halo(x, grid_->nx(), below, above, wrap);
  }
  void build();
  // The pressure-gradient scale of x-face (axis 0) or y-face f.
  double face_scale(int axis, Index f) const {
    return open_scale_.empty() ? 1.0 : open_scale_[static_cast<std::size_t>(axis == 0 ? f : grid_->u_count() + f)];
  }

  const Grid* grid_;
  // Every cell couples to its four neighbours (periodic along both axes, no solids, at least two
  // cells along each): the loops skip the weights and wall checks, with the same bits (a weight
  // of one multiplies exactly; there are no walls to skip).
  bool uniform_ = false;
  std::vector<double> diagonal_;        // per cell; 1 in solid cells
  std::vector<std::uint8_t> right_, top_;  // coupling with the right / upper cell (wrapping)
  std::vector<double> precon_;          // MIC(0) inverse square-root pivots
  std::vector<double> left_, right_weight_, below_, above_;  // couplings per side as 0 / 1
  std::vector<double> inverse_diagonal_;                     // 0 in cells without couplings
  const RowSlabs* slabs_ = nullptr;
  std::vector<double> band_partial_, band_sums_;  // the mean's sums: own bands', every band's when split
};

}  // namespace simgrad::fluid
