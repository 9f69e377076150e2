// The joint-space mass matrix by the composite-rigid-body algorithm, and its Cholesky solve.
// The solve's adjoint is written by hand (solve_accelerations on ad::Var, at the end).
//
// M_ij = S_i . (I^c_b(j) S_j) for dof i on the path from dof j to the root, where I^c_b is the
// inertia of body b's subtree and S the dof axes (Featherstone, Rigid Body Dynamics Algorithms,
// 6.2). Armature adds to the diagonal, as a motor's reflected rotor inertia does. Entries off
// the path are zero; the dense solve below does not exploit that (models here have under 30
// dofs, where a dense factor costs less than the bookkeeping of a sparse one).
#pragma once

#include <cstdint>

#include "sims/rigid/workspace.hpp"

namespace simgrad::rigid {

// Composite inertias and the mass matrix (armature included) into w.mass_matrix.
template <class S>
void mass_matrix(const RigidTree& t, const RigidConstants<S>& c, RigidWorkspace<S>& w) {
  for (int b = 0; b < t.bodies; ++b) w.composite[static_cast<std::size_t>(b)] = w.inertia[static_cast<std::size_t>(b)];
  for (int b = t.bodies - 1; b > 0; --b) w.composite[static_cast<std::size_t>(t.parent[static_cast<std::size_t>(b)])] += w.composite[static_cast<std::size_t>(b)];
  const auto nv = static_cast<std::size_t>(t.nv);
  for (S& x : w.mass_matrix) x = S(0.0);
  for (std::size_t j = 0; j < nv; ++j) {
    const Spatial<S> f = w.composite[static_cast<std::size_t>(t.dof_body[j])] * w.axis[j];
    for (int i = static_cast<int>(j); i >= 0; i = t.dof_parent[static_cast<std::size_t>(i)]) {
      const S mij = power(w.axis[static_cast<std::size_t>(i)], f);
      w.mass_matrix[j * nv + static_cast<std::size_t>(i)] = mij;
      w.mass_matrix[static_cast<std::size_t>(i) * nv + j] = mij;
    }
    w.mass_matrix[j * nv + j] = w.mass_matrix[j * nv + j] + c.dof_armature[j];
  }
}

// Replaces the symmetric positive definite n x n matrix a by its Cholesky factor L (lower
// triangle; a = L L^T). Returns false when a pivot is not positive.
template <class S>
bool cholesky_factor(S* a, int n) {
  using std::sqrt;
  const auto un = static_cast<std::size_t>(n);
  for (std::size_t j = 0; j < un; ++j) {
    S d = a[j * un + j];
    for (std::size_t k = 0; k < j; ++k) d = d - a[j * un + k] * a[j * un + k];
    if (!(value_of(d) > 0.0)) return false;
    const S l = sqrt(d);
    a[j * un + j] = l;
    for (std::size_t i = j + 1; i < un; ++i) {
      S s = a[i * un + j];
      for (std::size_t k = 0; k < j; ++k) s = s - a[i * un + k] * a[j * un + k];
      a[i * un + j] = s / l;
    }
  }
  return true;
}

// Solves L L^T x = b in place (x overwrites b), L from cholesky_factor.
template <class S>
void cholesky_solve(const S* l, int n, S* b) {
  const auto un = static_cast<std::size_t>(n);
  for (std::size_t i = 0; i < un; ++i) {
    S s = b[i];
    for (std::size_t k = 0; k < i; ++k) s = s - l[i * un + k] * b[k];
    b[i] = s / l[i * un + i];
  }
  for (std::size_t i = un; i-- > 0;) {
    S s = b[i];
    for (std::size_t k = i + 1; k < un; ++k) s = s - l[k * un + i] * b[k];
    b[i] = s / l[i * un + i];
  }
}

// w.qacc = M^-1 (w.applied - w.bias), M = w.mass_matrix (its lower triangle; overwritten).
// False when M is not positive definite.
template <class S>
bool solve_accelerations(int nv, RigidWorkspace<S>& w) {
  if (!cholesky_factor(w.mass_matrix.data(), nv)) return false;
  for (std::size_t d = 0; d < static_cast<std::size_t>(nv); ++d) w.qacc[d] = w.applied[d] - w.bias[d];
  cholesky_solve(w.mass_matrix.data(), nv, w.qacc.data());
  return true;
}

// The adjoint of the solve below: with lambda = M^-1 qacc_bar, r_bar += lambda and
// M_bar -= lambda qacc^T, whose two halves meet on M's lower triangle (M is symmetric).
// ints: n, the first output leaf, M's lower triangle row by row, r; reals: L, qacc, scratch.
inline void solve_accelerations_adjoint(double* g, const std::int32_t* ints, double* reals) {
  const int n = ints[0];
  const auto un = static_cast<std::size_t>(n);
  const std::int32_t first = ints[1];
  const std::int32_t* m_index = ints + 2;
  const std::int32_t* r_index = m_index + un * (un + 1) / 2;
  const double* l = reals;
  const double* x = reals + un * un;
  double* lambda = reals + un * un + un;
  for (std::size_t i = 0; i < un; ++i) lambda[i] = g[first + static_cast<std::int32_t>(i)];
  cholesky_solve(l, n, lambda);
  for (std::size_t i = 0; i < un; ++i) g[r_index[i]] += lambda[i];
  for (std::size_t j = 0; j < un; ++j) {
    for (std::size_t k = 0; k < j; ++k) g[*m_index++] -= lambda[j] * x[k] + lambda[k] * x[j];
    g[*m_index++] -= lambda[j] * x[j];
  }
}

// The solve on the tape: r = applied - bias is recorded, the factor and the solve run on values
// and qacc enters as new leaves whose adjoint solve_accelerations_adjoint supplies. Recording the
// factor and the two triangular solves took 1,449 of the 13,700 entries per substep of the
// ten-part walker's step (nv = 14), where the adjoint is two triangular solves and an outer
// product on values.
inline bool solve_accelerations(int nv, RigidWorkspace<ad::Var>& w) {
  const auto un = static_cast<std::size_t>(nv);
  ad::LocalTape& tape = *ad::active_tape;
  for (std::size_t d = 0; d < un; ++d) w.qacc[d] = w.applied[d] - w.bias[d];
  const ad::ExternalData data = tape.external(tape.size(), solve_accelerations_adjoint, 2 + un * (un + 1) / 2 + un, un * un + 2 * un);
  data.ints[0] = nv;
  data.ints[1] = tape.size();
  std::int32_t* m_index = data.ints + 2;
  for (std::size_t j = 0; j < un; ++j)
    for (std::size_t k = 0; k <= j; ++k) *m_index++ = w.mass_matrix[j * un + k].i;
  for (std::size_t d = 0; d < un; ++d) m_index[d] = w.qacc[d].i;
  double* l = data.reals;
  double* x = data.reals + un * un;
  for (std::size_t i = 0; i < un * un; ++i) l[i] = w.mass_matrix[i].v;
  for (std::size_t d = 0; d < un; ++d) x[d] = w.qacc[d].v;
  const bool factored = cholesky_factor(l, nv);
  if (factored) cholesky_solve(l, nv, x);
  // The leaves are recorded even when the factor fails, so that a sweep stays within the tape.
  for (std::size_t d = 0; d < un; ++d) w.qacc[d] = ad::Var::input(x[d]);
  return factored;
}

}  // namespace simgrad::rigid
