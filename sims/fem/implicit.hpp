// Implicit (backward) Euler for FEM bodies, solved by Newton's method with a sparse direct
// solve, and its adjoint by implicit differentiation: one solve with the transposed system
// matrix per step, never the Newton iterations unrolled.
//
// With forces F(x, v) = elastic and viscous element forces + penalty contact - alpha M v + M g,
// a step finds the new velocity v' with
//   g(v') = M (v' - v) - dt F(x + dt v', v') = 0,     then x' = x + dt v'
// (pinned nodes keep v' = 0). Newton's matrix is A = dg/dv' = M + dt^2 K + dt C, with
// K = -dF/dx and C = -dF/dv (fem_stiffness.hpp for the elements, the local AD scalar for
// contact). At the solution, for adjoints a_x', a_v' of the new state, A^T lambda = a_v' + dt a_x'
// gives a_x += a_x' + dt (dF/dx)^T lambda, a_v += M lambda and, for any parameter p of F,
// a_p += dt (dF/dp)^T lambda: a vector-Jacobian product of the force kernels at the new state.
#pragma once

#include <memory>
#include <span>

namespace simgrad::fem {

template <int D>
class Fem;

template <int D>
class ImplicitEuler {
 public:
  explicit ImplicitEuler(Fem<D>& fem);
  ~ImplicitEuler();

  // Writes the new state.
  void step(std::span<const double> state, std::span<double> next);
  // Adds the adjoints of state and parameters, given those of the next state; v' is the step's
  // new velocity (from its residual, or recomputed when empty).
  void step_adjoint(std::span<const double> state, std::span<const double> new_velocity,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint);
  // Newton iterations taken by the most recent step.
  int last_iterations() const { return last_iterations_; }

 private:
  struct Workspace;
  // Factorizes A at the new velocity held in the workspace.
  void factorize();
  // The Newton residual g at the workspace's v' (and x' = x + dt v'), into the workspace.
  void residual(std::span<const double> state);

  Fem<D>& fem_;
  std::unique_ptr<Workspace> work_;
  int last_iterations_ = 0;
};

extern template class ImplicitEuler<2>;
extern template class ImplicitEuler<3>;

}  // namespace simgrad::fem
