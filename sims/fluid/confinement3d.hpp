// Vorticity confinement on the 3D MAC grid, as in 2D (confinement.hpp; Fedkiw, Stam and Jensen
// 2001). At every cell centre, from the cell-centred velocity U (the mean of the two faces on
// each axis), with central differences D_a:
//   omega = curl U, eta = grad |omega|, N = eta / |eta|, f = epsilon h (N x omega),
// and each face that is not a wall gains dt times the mean of f over the cells beside it.
// Central differences wrap on a periodic axis and take the cell itself beyond a closed or open
// side; solid cells exert no force. |omega| and |eta| are smoothed at zero (sqrt(x^2 + tiny)).
// epsilon (the model's `confinement`) is differentiable. The adjoint is hand-written: every
// transpose is a gather over a cell's neighbours, and epsilon's adjoint sums per block, in
// block order.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "sims/fluid/fields.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

class Confinement3 {
 public:
  Confinement3() = default;
  explicit Confinement3(const Grid3& grid);

  // velocity += dt f(velocity), epsilon = m.confinement.
  void apply(const SmokeModel3& m, const Velocity3& velocity);
  // Given the velocity the forward saw, maps the adjoint to the one before it, in place, and adds
  // epsilon's adjoint to the model.
  void apply_adjoint(SmokeModel3& m, const ConstVelocity3& velocity, const Velocity3& adjoint);

 private:
  using Field = std::vector<double>;
  // The forward's fields from the velocity: cell velocities, omega, |omega|, N, |eta|.
  void compute(const ConstVelocity3& velocity);
  // The cells before and after cell c along axis a in the central differences.
  Index low_neighbour(int a, const std::array<int, 3>& ijk) const;
  Index high_neighbour(int a, const std::array<int, 3>& ijk) const;
  // out += sign D_a^T x, D_a the central difference along axis a without its 1 / (2h) (the
  // callers fold that into x): a gather over each cell and its two neighbours along a.
  void add_difference_transpose(int a, double sign, const Field& x, Field& out) const;

  const Grid3* grid_ = nullptr;
  std::array<Field, 3> cell_velocity_, omega_, normal_, force_, a_omega_, a_eta_, a_cell_;
  Field magnitude_, eta_norm_, a_magnitude_, partial_;
};

}  // namespace simgrad::fluid
