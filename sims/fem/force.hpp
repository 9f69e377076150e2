// The FEM element kernels: linear triangles (2D) and tetrahedra (3D) with a hyperelastic
// material (fem_material.hpp) and stiffness-proportional Rayleigh damping, scattered into the
// node forces (deterministically: see kernel.hpp); and the per-element Lame parameters expanded
// from per-region Young's modulus and Poisson ratio.
//
// An element has nodes x_0 .. x_D. With Ds = [x_1 - x_0, ..., x_D - x_0] and Dm the same at
// rest, F = Ds Dm^-1. The element's forces are -V P Dm^-T: column i goes to node i + 1 and node 0
// takes minus their sum (V the rest volume, area in 2D).
#pragma once

#include <array>
#include <cmath>

#include "core/kernel.hpp"
#include "sims/fem/material.hpp"

namespace simgrad::fem {

// The forces of one element on its nodes, given the nodes' positions x and velocities v, its
// rest inverse Dm^-1 and volume, and its material: the physics of the element kernel, shared with
// the stiffness assembly of the implicit integrator (fem_stiffness.hpp).
template <class S, int D>
SIMGRAD_HD void element_forces(const Vec<S, D> (&x)[D + 1], const Vec<S, D> (&v)[D + 1], const Mat<S, D>& rest_inverse,
                    const S& rest_volume, MaterialModel material, const S& mu, const S& lambda, const S* beta,
                    Vec<S, D> (&force)[D + 1]) {
  Mat<S, D> ds;
  for (int i = 0; i < D; ++i) ds.set_column(i, x[i + 1] - x[0]);
  const Mat<S, D> f = ds * rest_inverse;
  Mat<S, D> p = first_piola(material, f, mu, lambda);
  if (beta != nullptr) {
    Mat<S, D> dv;
    for (int i = 0; i < D; ++i) dv.set_column(i, v[i + 1] - v[0]);
    p = p + viscous_stress(f, dv * rest_inverse, mu, lambda, *beta);
  }
  const Mat<S, D> h = (-rest_volume) * (p * transpose(rest_inverse));
  force[0] = Vec<S, D>::zero();
  for (int i = 0; i < D; ++i) {
    force[i + 1] = h.column(i);
    force[0] -= force[i + 1];
  }
}

template <int D>
struct ElasticForce {
  Field<D> x, v;                    // node positions and velocities (gathered)
  Field<D * D> rest_inverse;        // per element: Dm^-1, row by row
  Field<1> rest_volume;             // per element
  Field<1> mu, lambda;              // per element: Lame parameters
  Field<1> stiffness_damping;       // per element: Rayleigh beta (s); unused when !damped
  Field<D> node_force;              // out: per node, the sum over its elements
  MaterialModel material = MaterialModel::kCorotated;
  bool damped = false;

  std::array<FieldRef, 2> gathered() const { return {x, v}; }
  std::array<FieldRef, 1> scattered() const { return {node_force}; }

  template <class E>
  SIMGRAD_HD void operator()(E& e) const {
    using S = typename E::Scalar;
    Vec<S, D> xs[D + 1], vs[D + 1], force[D + 1];
    for (int s = 0; s <= D; ++s) {
      xs[s] = e.slot(x, s);
      vs[s] = damped ? e.slot(v, s) : Vec<S, D>::zero();
    }
    const S beta = damped ? e.own(stiffness_damping) : S(0.0);
    element_forces<S, D>(xs, vs, Mat<S, D>::from_rows(e.own(rest_inverse)), e.own(rest_volume), material,
                         e.own(mu), e.own(lambda), damped ? &beta : nullptr, force);
    for (int s = 0; s <= D; ++s) e.scatter(node_force, s, force[s]);
  }

  // Hand-written adjoint (fem_material.hpp has each law's adjoint and the viscous stress's),
  // which keeps the backward pass within a small factor of the forward pass; the tests compare
  // it with the derived one. With R = Dm^-1 and the adjoints g_s of the node forces:
  // Hbar = [g_1 - g_0, ...], Pbar = -V Hbar R, Fbar (and Fdotbar) from the laws,
  // Dsbar = Fbar R^T, whose columns go to nodes 1..D and minus their sum to node 0 (likewise
  // Dvbar = Fdotbar R^T to the velocities).
  template <class E>
  SIMGRAD_HD void adjoint(E& e) const {
    // Actuated rest shapes (creatures, a few elements) are differentiated by the engine.
    if (rest_inverse.adjoint != nullptr) return e.derive(*this);
    using M = Mat<double, D>;
    const M rest = M::from_rows(e.own(rest_inverse));
    const Vec<double, D> x0 = e.slot(x, 0), g0 = e.scattered_adjoint(node_force, 0);
    M ds, h_bar;
    for (int i = 0; i < D; ++i) {
      ds.set_column(i, e.slot(x, i + 1) - x0);
      h_bar.set_column(i, e.scattered_adjoint(node_force, i + 1) - g0);
    }
    const M p_bar = (-e.own(rest_volume)) * (h_bar * rest);
    const M f = ds * rest;
    const double mu_value = e.own(mu), lambda_value = e.own(lambda);
    M f_bar = M::zero();
    double mu_bar = 0.0, lambda_bar = 0.0;
    first_piola_adjoint<D>(material, f, mu_value, lambda_value, p_bar, f_bar, mu_bar, lambda_bar);
    if (damped) {
      const Vec<double, D> v0 = e.slot(v, 0);
      M dv;
      for (int i = 0; i < D; ++i) dv.set_column(i, e.slot(v, i + 1) - v0);
      M f_rate_bar = M::zero();
      double beta_bar = 0.0;
      viscous_stress_adjoint<D>(f, dv * rest, mu_value, lambda_value, e.own(stiffness_damping), p_bar, f_bar,
                                f_rate_bar, mu_bar, lambda_bar, beta_bar);
      add_to_nodes(e, v, f_rate_bar * transpose(rest));
      e.add_own(stiffness_damping, beta_bar);
    }
    add_to_nodes(e, x, f_bar * transpose(rest));
    e.add_own(mu, mu_bar);
    e.add_own(lambda, lambda_bar);
  }

 private:
  // The adjoint of the edge matrix [y_1 - y_0, ...] of a node field y: column i to node i + 1,
  // minus their sum to node 0.
  template <class E>
  SIMGRAD_HD static void add_to_nodes(E& e, const Field<D>& y, const Mat<double, D>& edges_bar) {
    Vec<double, D> first = Vec<double, D>::zero();
    for (int i = 0; i < D; ++i) {
      const Vec<double, D> c = edges_bar.column(i);
      e.add_slot(y, i + 1, c);
      first -= c;
    }
    e.add_slot(y, 0, first);
  }
};

// The elastic energy of the elements, for energy checks: sum of V psi(F).
template <int D>
struct ElasticEnergy {
  Field<D> x;
  Field<D * D> rest_inverse;
  Field<1> rest_volume, mu, lambda;
  MaterialModel material = MaterialModel::kCorotated;

  std::array<FieldRef, 1> gathered() const { return {x}; }

  template <class E>
  SIMGRAD_HD typename E::Scalar operator()(E& e) const {
    using S = typename E::Scalar;
    Mat<S, D> ds;
    for (int i = 0; i < D; ++i) ds.set_column(i, e.slot(x, i + 1) - e.slot(x, 0));
    const Mat<S, D> f = ds * Mat<S, D>::from_rows(e.own(rest_inverse));
    return e.own(rest_volume) * energy_density(material, f, e.own(mu), e.own(lambda));
  }
};

// Per-element material parameters from those of the element's region (an incidence of arity 1
// from elements to regions).
struct ExpandMaterial {
  Field<1> youngs, poisson, damping;  // per region (gathered)
  Field<1> mu, lambda, beta;          // out: per element

  std::array<FieldRef, 3> gathered() const { return {youngs, poisson, damping}; }

  template <class E>
  SIMGRAD_HD void operator()(E& e) const {
    using S = typename E::Scalar;
    S m, l;
    lame_parameters(e.slot(youngs, 0), e.slot(poisson, 0), m, l);
    e.write(mu, m);
    e.write(lambda, l);
    e.write(beta, e.slot(damping, 0));
  }
};

}  // namespace simgrad::fem
