// Static equilibrium of an FEM body under gravity with its pinned nodes held: the positions x
// where the elastic forces balance the weights, f(x) + M g = 0, by Newton's method with a sparse
// LDLT factorization of the tangent stiffness (symmetric for a hyperelastic material).
#pragma once

#include <span>

#include "sims/fem/fem.hpp"

namespace simgrad::fem {

struct StaticResult {
  int iterations = 0;
  double relative_residual = 0.0;  // |f(x) + M g| / |M g| over the free degrees of freedom
};

// Moves `positions` (nodes x D, starting guess in, equilibrium out) to equilibrium. Newton
// converges quadratically, so one more step after `tolerance` would reach rounding level. Throws
// std::runtime_error when the stiffness is singular (a body not held in place) or Newton does
// not reach `tolerance` within `max_iterations`.
template <int D>
StaticResult solve_static(Fem<D>& fem, std::span<double> positions, double tolerance = 1e-6,
                          int max_iterations = 30);

}  // namespace simgrad::fem
