// Vorticity confinement (Fedkiw, Stam and Jensen 2001): puts back the small swirls that numerical
// diffusion damps. At every cell centre, from the cell-centred velocity (the mean of the two
// faces on each axis):
//   omega = dv/dx - du/dy (central differences), eta = grad |omega|, N = eta / |eta|,
//   f = epsilon h (N_y omega, -N_x omega),
// and each face that is not a wall gains dt times the mean of f over its cells. Central
// differences wrap on a periodic axis and take the cell itself beyond a closed or open side;
// solid cells exert no force. |omega| and |eta| are smoothed at zero (sqrt(x^2 + tiny)) so the
// force stays differentiable there. epsilon (the model's `confinement`) is differentiable.
// The adjoint is hand-written: every transpose is a gather over a cell's neighbours, and the
// epsilon adjoint sums per block, in block order.
#pragma once

#include <span>
#include <vector>

#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

class Confinement {
 public:
  Confinement() = default;
  explicit Confinement(const Grid& grid);

  // velocity += dt f(velocity), epsilon = m.confinement.
  void apply(const SmokeModel& m, const Velocity<2>& velocity);
  // Given the velocity the forward saw, maps the adjoint to the one before it, in place, and
  // adds epsilon's adjoint to the model.
  void apply_adjoint(SmokeModel& m, const ConstVelocity<2>& velocity, const Velocity<2>& adjoint);

 private:
  // The fields of the forward, from the velocities: cell velocities, omega, |omega|, N, |eta|.
  void compute(std::span<const double> u, std::span<const double> v);
  // The neighbours of cell c in the central differences: left, right, below, above.
  void neighbours(Index c, Index out[4]) const;
  // out_x[n] = sum of ax over the cells whose right neighbour is n, minus over those whose left
  // neighbour is n; out_y likewise along y (out_x may be out_y: then both add).
  void difference_adjoint(const double* ax, const double* ay, double* out_x, double* out_y) const;

  const Grid* grid_ = nullptr;
  std::vector<double> cell_u_, cell_v_, omega_, magnitude_, normal_x_, normal_y_, eta_norm_;
  std::vector<double> force_x_, force_y_, a_omega_, a_eta_x_, a_eta_y_, a_magnitude_, a_cell_u_, a_cell_v_, partial_;
};

}  // namespace simgrad::fluid
