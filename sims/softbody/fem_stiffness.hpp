// Jacobians of the elastic node forces with respect to positions (minus the tangent stiffness
// K) and velocities (minus the damping matrix), assembled as sparse matrices for the static and
// implicit solvers. Each element's block comes from the element's own force function
// (fem_force.hpp) on the local reverse-mode scalar, one backward sweep per force component:
// exact, and the physics stays written once.
#pragma once

#include <span>

#include <Eigen/SparseCore>

#include "sims/softbody/fem_model.hpp"

namespace simgrad::softbody {

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

}  // namespace simgrad::softbody
