// Hyperelastic material laws for FEM elements, written once for any scalar: the strain energy
// density psi(F) of the deformation gradient F and its first Piola-Kirchhoff stress
// P = d psi / d F, plus a viscous stress for stiffness-proportional Rayleigh damping.
//
//   corotated    (fixed corotated, Stomakhin et al. 2012), with F = R S the polar decomposition:
//                psi = mu |F - R|^2 + lambda/2 (J - 1)^2,      P = 2 mu (F - R) + lambda (J - 1) J F^-T
//   neo-Hookean  (compressible, Bonet and Wood):
//                psi = mu/2 (|F|^2 - D) - mu ln J + lambda/2 (ln J)^2,
//                P = mu (F - F^-T) + lambda ln J F^-T
// Both reduce to linear elasticity with Lame parameters mu, lambda at small strain. In 2D the
// element is a slice in plane strain, so E and nu mean the same as in 3D.
#pragma once

#include <cmath>

#include "sims/softbody/fem_matrix.hpp"

namespace simgrad::softbody {

enum class MaterialModel { kCorotated, kNeoHookean };

// Lame parameters from Young's modulus E and Poisson ratio nu.
template <class S>
void lame_parameters(const S& youngs, const S& poisson, S& mu, S& lambda) {
  mu = youngs / (2.0 * (1.0 + poisson));
  lambda = youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
}

// The rotation R of the polar decomposition F = R S. In 2D in closed form; in 3D by a fixed
// number of Newton steps X <- (X + X^-T) / 2, which converge quadratically to R for det F > 0
// (eight steps reach double precision for principal stretches between 0.1 and 10). The count is
// fixed so that the forward pass and its derived adjoint see the same function.
template <class S>
Mat<S, 2> polar_rotation(const Mat<S, 2>& f) {
  using std::sqrt;
  const S c = f.a[0][0] + f.a[1][1];
  const S s = f.a[1][0] - f.a[0][1];
  const S inv_r = 1.0 / sqrt(c * c + s * s);
  Mat<S, 2> r;
  r.a[0][0] = c * inv_r;
  r.a[0][1] = -(s * inv_r);
  r.a[1][0] = s * inv_r;
  r.a[1][1] = c * inv_r;
  return r;
}
template <class S>
Mat<S, 3> polar_rotation(const Mat<S, 3>& f) {
  Mat<S, 3> x = f;
  for (int k = 0; k < 8; ++k) x = 0.5 * (x + (1.0 / determinant(x)) * cofactor(x));
  return x;
}

// Strain energy per unit reference volume.
template <class S, int D>
S energy_density(MaterialModel model, const Mat<S, D>& f, const S& mu, const S& lambda) {
  using std::log;
  const S j = determinant(f);
  if (model == MaterialModel::kCorotated) {
    const Mat<S, D> d = f - polar_rotation(f);
    return mu * contract(d, d) + (0.5 * lambda) * ((j - 1.0) * (j - 1.0));
  }
  const S log_j = log(j);
  return (0.5 * mu) * (contract(f, f) - double(D)) - mu * log_j + (0.5 * lambda) * (log_j * log_j);
}

// First Piola-Kirchhoff stress, d energy_density / dF.
template <class S, int D>
Mat<S, D> first_piola(MaterialModel model, const Mat<S, D>& f, const S& mu, const S& lambda) {
  using std::log;
  const S j = determinant(f);
  const Mat<S, D> j_f_inv_t = cofactor(f);  // J F^-T
  if (model == MaterialModel::kCorotated)
    return (2.0 * mu) * (f - polar_rotation(f)) + (lambda * (j - 1.0)) * j_f_inv_t;
  const Mat<S, D> f_inv_t = (1.0 / j) * j_f_inv_t;
  return mu * (f - f_inv_t) + (lambda * log(j)) * f_inv_t;
}

// Kelvin-Voigt viscous stress for stiffness-proportional Rayleigh damping with coefficient beta
// (seconds): the linear-elastic law applied to the rate of Green strain, Edot = sym(F^T Fdot),
// pulled back by F. A rigid motion has Edot = 0, so it is not damped; at small strain the
// nodal forces are -beta K v, K the stiffness matrix at rest.
template <class S, int D>
Mat<S, D> viscous_stress(const Mat<S, D>& f, const Mat<S, D>& f_rate, const S& mu, const S& lambda, const S& beta) {
  const Mat<S, D> strain_rate = symmetric_part(transpose(f) * f_rate);
  const Mat<S, D> second_piola = (2.0 * mu) * strain_rate + (lambda * trace(strain_rate)) * Mat<S, D>::identity();
  return beta * (f * second_piola);
}

}  // namespace simgrad::softbody
