// The materials of a particle, written once for any scalar: the Kirchhoff stress tau = P F^T of
// its elastic deformation gradient F (J = det F, mu and lambda its Lame parameters), and the
// plastic return mapping that projects a trial F back into the elastic region.
//
//   fixed corotated  tau = 2 mu (F - R) F^T + lambda (J - 1) J I        (Stomakhin et al. 2012)
//   neo-Hookean      tau = mu (F F^T - I) + lambda ln(J) I
//   sand             Drucker-Prager in Hencky strain (Klar et al. 2016): with F = U diag(sigma) V^T,
//                    e = ln sigma, e^ = e - tr(e)/D, alpha = sqrt(2/3) 2 sin(phi) / (3 - sin(phi)):
//                    tr e > 0 (tension): sigma <- 1; else with
//                    dgamma = |e^| + (D lambda + 2 mu) / (2 mu) tr(e) alpha, if dgamma > 0:
//                    e <- e - dgamma e^ / |e^|.   tau = U (2 mu e + lambda tr(e) I) U^T.
//                    (project_sand writes the two cases as one radial return.)
//                    The plastic scalar accumulates the log of the volume the projection removed.
//   snow             sigma clamped to [1 - theta_c, 1 + theta_s] (Stomakhin et al. 2013); the
//                    plastic scalar is J_p, multiplied by det(F trial) / det(F projected); the
//                    corotated stress with mu, lambda times exp(xi (1 - J_p)), xi the hardening.
//   liquid           weakly compressible: F <- J^(1/D) I keeps only the volume change;
//                    tau = K (J - 1) J I, K the bulk modulus (energy K/2 (J - 1)^2).
// The relaxed return mappings (sharpness beta > 0) take a smooth excess (below) in place of
// max(0, .) in the cone's caps and in the clamp; beta <= 0 gives the hard twin.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/relax.hpp"
#include "sims/mpm/svd.hpp"

namespace simgrad::mpm {

enum class Material : std::uint8_t { kCorotated, kNeoHookean, kSand, kSnow, kLiquid };

// What a particle's material reads, for one particle.
template <class S>
struct MaterialConstants {
  S mu, lambda;        // Lame parameters from E and nu
  S friction_angle;    // sand, radians
  S hardening;         // snow: xi
  S bulk_modulus;      // liquid
  double critical_compression = 2.5e-2;  // snow: theta_c
  double critical_stretch = 7.5e-3;      // snow: theta_s
};

// max(0, x), or its relaxation with sharpness beta > 0 (width w = 1 / beta): 0 for x <= 0,
// x^2 / (2 w) up to w, x - w / 2 beyond. Unlike softplus it is exactly 0 for x <= 0, so a
// relaxed return mapping leaves the elastic region as it is (no drift of particles at rest).
template <class S>
S excess(const S& x, double beta) {
  if (!(x > 0.0)) return S(0.0);
  if (beta <= 0.0) return x;
  const double w = 1.0 / beta;
  return x < w ? S((0.5 * beta) * (x * x)) : S(x - 0.5 * w);
}

// The principal Hencky strains e = ln sigma of a decomposition, and their trace.
template <class S, int D>
S hencky_strain(const Svd<S, D>& svd, Vec<S, D>& e) {
  using std::log;
  S tr = S(0.0);
  for (int d = 0; d < D; ++d) {
    e[d] = log(svd.sigma[d]);
    tr = tr + e[d];
  }
  return tr;
}

// Projects the trial elastic F of a sand particle onto the Drucker-Prager cone; adds the log of
// the volume removed to `plastic`. Written as a radial return: the volumetric strain is capped
// at 0 (tr_c = min(tr e, 0): cohesionless sand carries no tension) and the deviatoric strain's
// length at the cone's radius y = alpha (D lambda + 2 mu) / (2 mu) (-tr_c), which is the case
// split of Klar et al. in one continuous formula.
template <class S, int D>
void project_sand(Mat<S, D>& f, S& plastic, const MaterialConstants<S>& c, double beta) {
  using std::exp;
  using std::log;
  using std::sin;
  using std::sqrt;
  const Svd<S, D> svd = singular_values(f);
  Vec<S, D> e;
  const S tr = hencky_strain(svd, e);
  Vec<S, D> e_hat;
  for (int d = 0; d < D; ++d) e_hat[d] = e[d] - tr / double(D);
  const S tension = excess(tr, beta);
  const S tr_c = tr - tension;
  const S sin_phi = sin(c.friction_angle);
  const S alpha = std::sqrt(2.0 / 3.0) * (2.0 * sin_phi) / (3.0 - sin_phi);
  const S radius = -(alpha * (double(D) * c.lambda + 2.0 * c.mu) / (2.0 * c.mu) * tr_c);
  // |e^| has no derivative at e^ = 0 (pure volume change, at rest in particular): no shear to cap.
  const S hat_squared = dot(e_hat, e_hat);
  const S hat_norm = hat_squared > 0.0 ? S(sqrt(hat_squared)) : S(0.0);
  const S cut = hat_squared > 0.0 ? excess(hat_norm - radius, beta) : S(0.0);
  if (tension == 0.0 && cut == 0.0) return;
  const S keep = hat_squared > 0.0 ? S(1.0 - cut / hat_norm) : S(0.0);
  Vec<S, D> sigma;
  for (int d = 0; d < D; ++d) sigma[d] = exp(tr_c / double(D) + keep * e_hat[d]);
  plastic = plastic + tension;
  f = compose(svd.u, sigma, svd.v);
}

// Clamps the singular values of a snow particle's trial F; J_p (`plastic`) takes the volume change.
template <class S, int D>
void project_snow(Mat<S, D>& f, S& plastic, const MaterialConstants<S>& c, double beta) {
  const Svd<S, D> svd = singular_values(f);
  const double lo = 1.0 - c.critical_compression, hi = 1.0 + c.critical_stretch;
  Vec<S, D> sigma;
  bool changed = false;
  S ratio = S(1.0);
  for (int d = 0; d < D; ++d) {
    const S s = svd.sigma[d];
    // sigma + max(0, lo - sigma) - max(0, sigma - hi): the clamp, relaxed with beta.
    const S shift = excess(lo - s, beta) - excess(s - hi, beta);
    changed = changed || shift != 0.0;
    sigma[d] = s + shift;
    ratio = ratio * (s / sigma[d]);
  }
  if (!changed) return;
  plastic = plastic * ratio;
  f = compose(svd.u, sigma, svd.v);
}

// Keeps only the volume change of a liquid particle's F.
template <class S, int D>
void project_liquid(Mat<S, D>& f) {
  using std::pow;
  using std::sqrt;
  const S j = fem::determinant(f);
  const S s = D == 2 ? S(sqrt(j)) : S(pow(j, 1.0 / 3.0));
  f = s * Mat<S, D>::identity();
}

// The plastic return mapping of a particle's trial F (elastic materials keep it).
template <class S, int D>
void return_mapping(Material m, Mat<S, D>& f, S& plastic, const MaterialConstants<S>& c, double beta) {
  switch (m) {
    case Material::kSand: project_sand(f, plastic, c, beta); return;
    case Material::kSnow: project_snow(f, plastic, c, beta); return;
    case Material::kLiquid: project_liquid(f); return;
    case Material::kCorotated:
    case Material::kNeoHookean: return;
  }
}

// The fixed-corotated Kirchhoff stress.
template <class S, int D>
Mat<S, D> corotated_kirchhoff(const Mat<S, D>& f, const S& mu, const S& lambda) {
  const S j = fem::determinant(f);
  const Mat<S, D> r = fem::polar_rotation(f);
  return (2.0 * mu) * ((f - r) * transpose(f)) + ((lambda * (j - 1.0)) * j) * Mat<S, D>::identity();
}

// The Kirchhoff stress of a particle's elastic F; `plastic` is its plastic scalar.
template <class S, int D>
Mat<S, D> kirchhoff_stress(Material m, const Mat<S, D>& f, const S& plastic, const MaterialConstants<S>& c) {
  using std::exp;
  using std::log;
  const Mat<S, D> identity = Mat<S, D>::identity();
  switch (m) {
    case Material::kNeoHookean:
      return c.mu * (f * transpose(f) - identity) + (c.lambda * log(fem::determinant(f))) * identity;
    case Material::kSnow: {
      const S h = exp(c.hardening * (1.0 - plastic));
      return corotated_kirchhoff(f, c.mu * h, c.lambda * h);
    }
    case Material::kSand: {
      const Svd<S, D> svd = singular_values(f);
      Vec<S, D> e;
      const S tr = hencky_strain(svd, e);
      Vec<S, D> g;
      for (int d = 0; d < D; ++d) g[d] = 2.0 * c.mu * e[d] + c.lambda * tr;
      return compose(svd.u, g, svd.u);
    }
    case Material::kLiquid: {
      const S j = fem::determinant(f);
      return ((c.bulk_modulus * (j - 1.0)) * j) * identity;
    }
    case Material::kCorotated: break;
  }
  return corotated_kirchhoff(f, c.mu, c.lambda);
}

}  // namespace simgrad::mpm
