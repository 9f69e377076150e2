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

#include "sims/fem/matrix.hpp"

namespace simgrad::fem {

enum class MaterialModel { kCorotated, kNeoHookean };

// Lame parameters from Young's modulus E and Poisson ratio nu.
template <class S>
SIMGRAD_HD void lame_parameters(const S& youngs, const S& poisson, S& mu, S& lambda) {
  mu = youngs / (2.0 * (1.0 + poisson));
  lambda = youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
}

// The rotation R of the polar decomposition F = R S. In 2D in closed form; in 3D by a fixed
// number of Newton steps X <- (X + X^-T) / 2, which converge quadratically to R for det F > 0
// (eight steps reach double precision for principal stretches between 0.1 and 10). The count is
// fixed so that the forward pass and its derived adjoint see the same function.
template <class S>
SIMGRAD_HD Mat<S, 2> polar_rotation(const Mat<S, 2>& f) {
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
SIMGRAD_HD Mat<S, 3> polar_rotation(const Mat<S, 3>& f) {
  Mat<S, 3> x = f;
  for (int k = 0; k < 8; ++k) x = 0.5 * (x + (1.0 / determinant(x)) * cofactor(x));
  return x;
}

// Strain energy per unit reference volume.
template <class S, int D>
SIMGRAD_HD S energy_density(MaterialModel model, const Mat<S, D>& f, const S& mu, const S& lambda) {
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
SIMGRAD_HD Mat<S, D> first_piola(MaterialModel model, const Mat<S, D>& f, const S& mu, const S& lambda) {
  using std::log;
  const S j = determinant(f);
  const Mat<S, D> j_f_inv_t = cofactor(f);  // J F^-T
  if (model == MaterialModel::kCorotated)
    return (2.0 * mu) * (f - polar_rotation(f)) + (lambda * (j - 1.0)) * j_f_inv_t;
  const Mat<S, D> f_inv_t = (1.0 / j) * j_f_inv_t;
  return mu * (f - f_inv_t) + (lambda * log(j)) * f_inv_t;
}

// The skew matrix of w (2D: a scalar, [[0, -w], [w, 0]]) and the axial vector of a matrix's
// skew part, for the derivative of the polar rotation.
SIMGRAD_HD inline Mat<double, 2> skew_of(const Vec<double, 1>& w) {
  Mat<double, 2> m;
  m.a[0][0] = m.a[1][1] = 0.0;
  m.a[0][1] = -w[0];
  m.a[1][0] = w[0];
  return m;
}
SIMGRAD_HD inline Mat<double, 3> skew_of(const Vec<double, 3>& w) {
  Mat<double, 3> m = Mat<double, 3>::zero();
  m.a[0][1] = -w[2];
  m.a[0][2] = w[1];
  m.a[1][0] = w[2];
  m.a[1][2] = -w[0];
  m.a[2][0] = -w[1];
  m.a[2][1] = w[0];
  return m;
}
SIMGRAD_HD inline Vec<double, 1> axial_of(const Mat<double, 2>& g) { return {{g.a[1][0] - g.a[0][1]}}; }
SIMGRAD_HD inline Vec<double, 3> axial_of(const Mat<double, 3>& g) {
  return {{g.a[2][1] - g.a[1][2], g.a[0][2] - g.a[2][0], g.a[1][0] - g.a[0][1]}};
}

// Adds to f_bar the adjoint through the polar rotation R(F), given r_bar = dL/dR: with S = R^T F,
// dR = R skew(w), (tr S I - S) w = axial(R^T dF - dF^T R), so f_bar += R skew(u) with
// (tr S I - S) u = axial(R^T r_bar) (in 2D the system is the scalar tr S).
SIMGRAD_HD inline void polar_rotation_adjoint(const Mat<double, 2>& f, const Mat<double, 2>& r, const Mat<double, 2>& r_bar,
                                   Mat<double, 2>& f_bar) {
  const Vec<double, 1> u{{axial_of(transpose(r) * r_bar)[0] / trace(transpose(r) * f)}};
  f_bar = f_bar + r * skew_of(u);
}
SIMGRAD_HD inline void polar_rotation_adjoint(const Mat<double, 3>& f, const Mat<double, 3>& r, const Mat<double, 3>& r_bar,
                                   Mat<double, 3>& f_bar) {
  const Mat<double, 3> s = transpose(r) * f;
  const Mat<double, 3> b = trace(s) * Mat<double, 3>::identity() - s;
  const Vec<double, 3> gamma = axial_of(transpose(r) * r_bar);
  const Mat<double, 3> b_inv_t = (1.0 / determinant(b)) * cofactor(b);  // b is symmetric: b^-1
  Vec<double, 3> u;
  for (int i = 0; i < 3; ++i) u[i] = b_inv_t.a[0][i] * gamma[0] + b_inv_t.a[1][i] * gamma[1] + b_inv_t.a[2][i] * gamma[2];
  f_bar = f_bar + r * skew_of(u);
}

// Adds to f_bar the adjoint of the cofactor matrix C(F), given c_bar = dL/dC: in 2D C is linear
// in F (its adjoint is cof(c_bar)); in 3D its columns are cross products of F's columns a, b, c.
SIMGRAD_HD inline void cofactor_adjoint(const Mat<double, 2>&, const Mat<double, 2>& c_bar, Mat<double, 2>& f_bar) {
  f_bar = f_bar + cofactor(c_bar);
}
SIMGRAD_HD inline void cofactor_adjoint(const Mat<double, 3>& f, const Mat<double, 3>& c_bar, Mat<double, 3>& f_bar) {
  const Vec<double, 3> a = f.column(0), b = f.column(1), c = f.column(2);
  const Vec<double, 3> p0 = c_bar.column(0), p1 = c_bar.column(1), p2 = c_bar.column(2);
  // C = [b x c, c x a, a x b]
  f_bar.set_column(0, f_bar.column(0) + cross(p1, c) + cross(b, p2));
  f_bar.set_column(1, f_bar.column(1) + cross(c, p0) + cross(p2, a));
  f_bar.set_column(2, f_bar.column(2) + cross(p0, b) + cross(a, p1));
}

// The adjoint of first_piola: given p_bar = dL/dP, adds dL/dF to f_bar and returns dL/dmu and
// dL/dlambda in mu_bar and lambda_bar.
template <int D>
SIMGRAD_HD void first_piola_adjoint(MaterialModel model, const Mat<double, D>& f, double mu, double lambda,
                         const Mat<double, D>& p_bar, Mat<double, D>& f_bar, double& mu_bar, double& lambda_bar) {
  const double j = determinant(f);
  const Mat<double, D> c = cofactor(f);  // J F^-T
  if (model == MaterialModel::kCorotated) {
    // P = 2 mu (F - R) + lambda (J - 1) C, with dJ = C : dF.
    const Mat<double, D> r = polar_rotation(f);
    mu_bar = 2.0 * contract(p_bar, f - r);
    lambda_bar = (j - 1.0) * contract(p_bar, c);
    f_bar = f_bar + (2.0 * mu) * p_bar + (lambda * contract(c, p_bar)) * c;
    polar_rotation_adjoint(f, r, (-2.0 * mu) * p_bar, f_bar);
    cofactor_adjoint(f, (lambda * (j - 1.0)) * p_bar, f_bar);
    return;
  }
  // P = mu (F - A) + lambda ln J A with A = F^-T: the tangent is major-symmetric, so
  // Fbar = mu Pbar + (mu - lambda ln J) A Pbar^T A + lambda (A : Pbar) A.
  const Mat<double, D> a = (1.0 / j) * c;
  const double log_j = std::log(j);
  mu_bar = contract(p_bar, f - a);
  lambda_bar = log_j * contract(p_bar, a);
  f_bar = f_bar + mu * p_bar + (mu - lambda * log_j) * (a * transpose(p_bar) * a) + (lambda * contract(a, p_bar)) * a;
}

// Kelvin-Voigt viscous stress for stiffness-proportional Rayleigh damping with coefficient beta
// (seconds): the linear-elastic law applied to the rate of Green strain, Edot = sym(F^T Fdot),
// pulled back by F. A rigid motion has Edot = 0, so it is not damped; at small strain the
// nodal forces are -beta K v, K the stiffness matrix at rest.
template <class S, int D>
SIMGRAD_HD Mat<S, D> viscous_stress(const Mat<S, D>& f, const Mat<S, D>& f_rate, const S& mu, const S& lambda, const S& beta) {
  const Mat<S, D> strain_rate = symmetric_part(transpose(f) * f_rate);
  const Mat<S, D> second_piola = (2.0 * mu) * strain_rate + (lambda * trace(strain_rate)) * Mat<S, D>::identity();
  return beta * (f * second_piola);
}

// The adjoint of viscous_stress: given p_bar = dL/dP, adds dL/dF to f_bar and dL/dFdot to
// f_rate_bar, and returns dL/dmu, dL/dlambda and dL/dbeta in the last three. With
// Edot = sym(F^T Fdot), S = 2 mu Edot + lambda tr(Edot) I and P = beta F S:
// Sbar = beta F^T Pbar, Edotbar = sym(2 mu Sbar + lambda tr(Sbar) I) and
// Fbar += beta Pbar S + Fdot Edotbar, Fdotbar += F Edotbar (S and Edotbar symmetric).
template <int D>
SIMGRAD_HD void viscous_stress_adjoint(const Mat<double, D>& f, const Mat<double, D>& f_rate, double mu, double lambda,
                            double beta, const Mat<double, D>& p_bar, Mat<double, D>& f_bar,
                            Mat<double, D>& f_rate_bar, double& mu_bar, double& lambda_bar, double& beta_bar) {
  using M = Mat<double, D>;
  const M strain_rate = symmetric_part(transpose(f) * f_rate);
  const double rate_trace = trace(strain_rate);
  const M second_piola = (2.0 * mu) * strain_rate + (lambda * rate_trace) * M::identity();
  beta_bar += contract(p_bar, f * second_piola);
  const M s_bar = beta * (transpose(f) * p_bar);
  mu_bar += 2.0 * contract(s_bar, strain_rate);
  lambda_bar += rate_trace * trace(s_bar);
  const M e_bar = symmetric_part((2.0 * mu) * s_bar + (lambda * trace(s_bar)) * M::identity());
  f_bar = f_bar + beta * (p_bar * second_piola) + f_rate * e_bar;
  f_rate_bar = f_rate_bar + f * e_bar;
}

}  // namespace simgrad::fem
