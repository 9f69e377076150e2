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
};

}  // namespace simgrad::mpm
