// Jacobians of the elastic node forces with respect to positions (minus the tangent stiffness
// K) and velocities (minus the damping matrix), assembled as sparse matrices for the static and
// implicit solvers. Each element's block comes from the element's own force function
// (fem_force.hpp) on the local reverse-mode scalar, one backward sweep per force component:
// exact, and the physics stays written once.
#pragma once

#include <span>

#include <Eigen/SparseCore>

#include "sims/fem/model.hpp"

namespace simgrad::fem {

// One element's Jacobian blocks over its D (D + 1) degrees of freedom (slot by slot, then
// component): dx[r][q] = d force_r / d x_q, and dv likewise for velocities (damped elements).
template <int D>
struct ElementJacobian {
  static constexpr int kDofs = D * (D + 1);
  double dx[kDofs][kDofs];
  double dv[kDofs][kDofs];
};

// Element e's blocks at positions x and velocities v (beta null: undamped, dv untouched).
// Allocation-free, for assembly inside an implicit step.
template <int D>
void element_jacobian(const FemModel<D>& model, Index e, std::span<const double> mu, std::span<const double> lambda,
                      const double* beta, std::span<const double> x, std::span<const double> v,
                      ElementJacobian<D>& out);

struct ForceJacobians {
  Eigen::SparseMatrix<double> dx;  // d force / d positions, (nodes D) x (nodes D)
  Eigen::SparseMatrix<double> dv;  // d force / d velocities; empty when undamped
};

// The Jacobians at positions x and velocities v (nodes x D each) for per-element Lame
// parameters mu, lambda and Rayleigh beta (null: undamped). Deterministic: elements are
// assembled in order.
template <int D>
void force_jacobians(const FemModel<D>& model, std::span<const double> mu, std::span<const double> lambda,
                     const double* beta, std::span<const double> x, std::span<const double> v, ForceJacobians& out);

}  // namespace simgrad::fem
