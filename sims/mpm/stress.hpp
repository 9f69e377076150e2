// The particle stage of a step: each particle's deformation gradient moves with its affine
// velocity, F <- (I + dt C) F, is projected back by its material's return mapping, and its
// stress becomes the affine momentum that the particle-to-grid transfer spreads (MLS-MPM,
// Hu et al. 2018):
//   Q = -dt V0 (4 / dx^2) tau + m C,   m = rho V0,
// tau the Kirchhoff stress (material.hpp) plus the active stress s a (F d)(F d)^T of an actuated
// particle, s its signal, a the actuation strength and d its direction (DiffTaichi's diffmpm).
#pragma once

#include <numbers>

#include "core/kernel.hpp"
#include "sims/fem/material.hpp"
#include "sims/mpm/material.hpp"

namespace simgrad::mpm {

// A D x D matrix from a field entry (row by row) and back.
template <class S, int D>
Mat<S, D> matrix_of(const Vec<S, D * D>& rows) {
  return Mat<S, D>::from_rows(rows);
}
template <class S, int D>
Vec<S, D * D> rows_of(const Mat<S, D>& m) {
  Vec<S, D * D> r;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) r[i * D + j] = m.a[i][j];
  return r;
}

template <int D>
struct ParticleStress {
  Field<D * D> f, c;                 // state: deformation gradient, affine velocity
  Field<1> plastic;                  // state
  Field<1> youngs, poisson, density, friction_angle, hardening, bulk_modulus, volume;
  Field<1> signal;                   // this step's actuation signal (when actuated)
  Field<D> direction;
  Field<D * D> f_next;               // out: next state
  Field<1> plastic_next;             // out: next state
  Field<D * D> affine;               // out: Q
  Field<1> mass;                     // out
  const Material* material = nullptr;
  const std::int32_t* actuator = nullptr;
  double dt = 0.0, inv_dx = 0.0, actuation_strength = 0.0, plastic_sharpness = 0.0;
  double critical_compression = 0.0, critical_stretch = 0.0;

  template <class E>
  void operator()(E& e) const {
    using S = typename E::Scalar;
    const Index p = e.index();
    const Material kind = material[p];
    const Mat<S, D> c_p = matrix_of<S, D>(e.own(c));
    Mat<S, D> f_p = (Mat<S, D>::identity() + dt * c_p) * matrix_of<S, D>(e.own(f));
    S plastic_p = e.own(plastic);
    MaterialConstants<S> k{S(0.0), S(0.0), S(0.0), S(0.0), S(0.0), critical_compression, critical_stretch};
    if (kind == Material::kLiquid) {
      k.bulk_modulus = e.own(bulk_modulus);
    } else {
      fem::lame_parameters(e.own(youngs), e.own(poisson), k.mu, k.lambda);
      if (kind == Material::kSand) k.friction_angle = e.own(friction_angle) * (std::numbers::pi / 180.0);
      if (kind == Material::kSnow) k.hardening = e.own(hardening);
    }
    return_mapping(kind, f_p, plastic_p, k, plastic_sharpness);
    Mat<S, D> tau = kirchhoff_stress(kind, f_p, plastic_p, k);
    if (actuator != nullptr && actuator[p] >= 0) {
      const Vec<S, D> stretch = apply(f_p, e.own(direction));
      const S active = actuation_strength * e.own(signal);
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j) tau.a[i][j] = tau.a[i][j] + active * (stretch[i] * stretch[j]);
    }
    const S volume_p = e.own(volume);
    const S mass_p = e.own(density) * volume_p;
    const Mat<S, D> q = (-dt * 4.0 * inv_dx * inv_dx) * volume_p * tau + mass_p * c_p;
    e.write(f_next, rows_of(f_p));
    e.write(plastic_next, plastic_p);
    e.write(affine, rows_of(q));
    e.write(mass, mass_p);
  }

  // Hand-written adjoint of a fixed-corotated particle (the other materials are derived): with
  // F' = G F, G = I + dt C, D = F' - R, tau^bar = k Q^bar (k = -dt V0 4 / dx^2) and u = F' d,
  //   F'^bar = 2 mu (tau^bar F' + tau^bar^T D) + lambda (2J - 1) tr(tau^bar) cof F'
  //            + s a (tau^bar + tau^bar^T) u d^T, plus the polar rotation's part for R^bar = -2 mu tau^bar F',
  //   mu^bar = 2 tau^bar : D F'^T,   lambda^bar = (J - 1) J tr(tau^bar),   s^bar = a u . tau^bar u,
  //   F^bar = G^T F'^bar,   C^bar = m Q^bar + dt F'^bar F^T,   rho^bar = (m^bar + Q^bar : C) V0.
  // The derived adjoint of this kernel took 38% of the gradient of the diffmpm-sized jelly block
  // (docs/simulators/mpm.md); the tests hold this one to it.
  template <class E>
  void adjoint(E& e) const {
    const Index p = e.index();
    if (material[p] != Material::kCorotated) {
      e.derive(*this);
      return;
    }
    using M = Mat<double, D>;
    const M c_p = matrix_of<double, D>(e.own(c));
    const M f0 = matrix_of<double, D>(e.own(f));
    const M g = M::identity() + dt * c_p;
    const M fp = g * f0;
    double mu = 0.0, lambda = 0.0;
    const double youngs_p = e.own(youngs), poisson_p = e.own(poisson);
    fem::lame_parameters(youngs_p, poisson_p, mu, lambda);
    const double j = fem::determinant(fp);
    const M r = fem::polar_rotation(fp);
    const M d = fp - r;
    const double volume_p = e.own(volume), mass_p = e.own(density) * volume_p;
    const M q_bar = matrix_of<double, D>(e.output_adjoint(affine));
    const M tau_bar = (-dt * 4.0 * inv_dx * inv_dx * volume_p) * q_bar;
    const double tr_tau_bar = fem::trace(tau_bar);
    M f_bar = matrix_of<double, D>(e.output_adjoint(f_next));
    const M d_bar = (2.0 * mu) * (tau_bar * fp);
    f_bar = f_bar + d_bar + (2.0 * mu) * (transpose(tau_bar) * d) + (lambda * (2.0 * j - 1.0) * tr_tau_bar) * fem::cofactor(fp);
    const double mu_bar = 2.0 * fem::contract(tau_bar, d * transpose(fp));
    const double lambda_bar = (j - 1.0) * j * tr_tau_bar;
    if (actuator != nullptr && actuator[p] >= 0) {
      const Vec<double, D> dir = e.own(direction);
      const Vec<double, D> u = apply(fp, dir);
      const double active = actuation_strength * e.own(signal);
      const Vec<double, D> u_bar = active * (apply(tau_bar, u) + apply(transpose(tau_bar), u));
      for (int a = 0; a < D; ++a)
        for (int b = 0; b < D; ++b) f_bar.a[a][b] += u_bar[a] * dir[b];
      e.add_own(signal, actuation_strength * dot(u, apply(tau_bar, u)));
    }
    fem::polar_rotation_adjoint(fp, r, -1.0 * d_bar, f_bar);
    // mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu) (1 - 2 nu)).
    const double a = 1.0 + poisson_p, b = 1.0 - 2.0 * poisson_p;
    e.add_own(youngs, mu_bar / (2.0 * a) + lambda_bar * poisson_p / (a * b));
    e.add_own(poisson, -mu_bar * youngs_p / (2.0 * a * a) + lambda_bar * youngs_p * (1.0 + 2.0 * poisson_p * poisson_p) / (a * a * b * b));
    e.add_own(density, (e.output_adjoint(mass) + fem::contract(q_bar, c_p)) * volume_p);
    e.add_own(plastic, e.output_adjoint(plastic_next));
    e.add_own(f, rows_of(transpose(g) * f_bar));
    e.add_own(c, rows_of(mass_p * q_bar + dt * (f_bar * transpose(f0))));
  }
};

}  // namespace simgrad::mpm
