// The joint-space mass matrix by the composite-rigid-body algorithm, and its Cholesky solve.
//
// M_ij = S_i . (I^c_b(j) S_j) for dof i on the path from dof j to the root, where I^c_b is the
// inertia of body b's subtree and S the dof axes (Featherstone, Rigid Body Dynamics Algorithms,
// 6.2). Armature adds to the diagonal, as a motor's reflected rotor inertia does. Entries off
// the path are zero; the dense solve below does not exploit that (models here have under 30
// dofs, where a dense factor costs less than the bookkeeping of a sparse one).
#pragma once

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

}  // namespace simgrad::rigid
