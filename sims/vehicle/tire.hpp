// Tires: the Pacejka Magic Formula (lateral or longitudinal, with load sensitivity), a linear
// tire for comparison, combined slip (friction ellipse, and the Magic Formula's cosine
// weighting functions) and rolling resistance. Forces are per axle in the single-track model.
#pragma once

#include <cmath>

#include "sims/vehicle/smooth.hpp"

namespace simgrad::vehicle {

// Magic Formula coefficients: stiffness B, shape C, peak friction coefficient D (force / load),
// curvature E; `load_sensitivity` is the relative change of D per relative change of load
// (Pacejka's p_Dy2 / p_Dx2), around the nominal load Fz0.
template <class S>
struct MagicFormula {
  S B, C, D, E;
  S load_sensitivity;
};

// The Magic Formula's shape: D sin(C atan(B x - E (B x - atan(B x)))).
template <class S>
S magic_formula_shape(const S& B, const S& C, const S& D, const S& E, const S& x) {
  using std::sin;
  const S bx = B * x;
  return D * sin(C * atan_of(bx - E * (bx - atan_of(bx))));
}

// Force of a tire (or axle) at slip `slip` (slip angle in rad, or slip ratio) under load Fz:
// Fz mu(Fz) shape(slip), with mu(Fz) = D (1 + load_sensitivity (Fz - Fz0) / Fz0).
template <class S>
S pacejka_force(const MagicFormula<S>& mf, const S& slip, const S& fz, double nominal_load) {
  const S peak = mf.D * (1.0 + mf.load_sensitivity * (fz - nominal_load) / nominal_load);
  return fz * magic_formula_shape(mf.B, mf.C, peak, mf.E, slip);
}

// The Magic Formula force and its partial derivatives, written out by hand for adjoints: the
// derived adjoint records some twenty operations per axle and step, this one a few products.
struct PacejkaPartials {
  double force = 0;
  double B = 0, C = 0, D = 0, E = 0, load_sensitivity = 0;  // d force / d coefficient
  double slip = 0, fz = 0;                                  // d force / d input
};

// pacejka_force and its partials at (mf, slip, fz), in the same operations as pacejka_force.
inline PacejkaPartials pacejka_force_partials(const MagicFormula<double>& mf, double slip, double fz,
                                              double nominal_load) {
  const double relative_load = (fz - nominal_load) / nominal_load;
  const double peak = mf.D * (1.0 + mf.load_sensitivity * relative_load);
  const double bx = mf.B * slip;
  const double inner = std::atan(bx);
  const double phi = bx - mf.E * (bx - inner);
  const double angle = std::atan(phi);
  const double sine = std::sin(mf.C * angle), cosine = std::cos(mf.C * angle);
  const double shape = peak * sine;
  // d shape / d phi, and d phi / d bx.
  const double d_phi = peak * cosine * mf.C / (1.0 + phi * phi);
  const double d_bx = d_phi * (1.0 - mf.E * (1.0 - 1.0 / (1.0 + bx * bx)));
  PacejkaPartials d;
  d.force = fz * shape;
  d.B = fz * d_bx * slip;
  d.C = fz * peak * cosine * angle;
  d.E = -fz * d_phi * (bx - inner);
  const double d_peak = fz * sine;
  d.D = d_peak * (1.0 + mf.load_sensitivity * relative_load);
  d.load_sensitivity = d_peak * mf.D * relative_load;
  d.slip = fz * d_bx * mf.B;
  d.fz = shape + d_peak * mf.D * mf.load_sensitivity / nominal_load;
  return d;
}

// A linear tire: force = cornering stiffness (N/rad) times slip angle, whatever the load.
template <class S>
S linear_tire_force(const S& cornering_stiffness, const S& slip) {
  return cornering_stiffness * slip;
}

// Friction ellipse: the factor sqrt(1 - (Fx / Fx_max)^2) by which a longitudinal force Fx
// shrinks the lateral force available; the utilisation is capped at 0.99 so the root stays
// differentiable when the tire is driven to its limit.
template <class S>
S friction_ellipse_scale(const S& fx, const S& fx_max) {
  using std::sqrt;
  const S u = fx / fx_max;
  const S u2 = u * u;
  if (value_of(u2) > 0.99) return S(0.0) * u + std::sqrt(0.01);
  return sqrt(1.0 - u2);
}

// friction_ellipse_scale(fx, fx_max) and its partials in fx and fx_max (zero on the capped branch).
struct EllipsePartials {
  double scale = 0, fx = 0, fx_max = 0;
};
inline EllipsePartials friction_ellipse_partials(double fx, double fx_max) {
  const double u = fx / fx_max;
  if (u * u > 0.99) return {std::sqrt(0.01), 0.0, 0.0};
  const double e = std::sqrt(1.0 - u * u);
  return {e, -u / (e * fx_max), u * u / (e * fx_max)};
}

// The longitudinal force a tire can pass on: fx itself well inside the friction limit fx_max,
// approaching it smoothly beyond (fx / (1 + (fx / fx_max)^4)^(1/4)): without wheel-spin states,
// this stands for the wheel spinning up or locking.
template <class S>
S traction_limit(const S& fx, const S& fx_max) {
  using std::sqrt;
  const S u = fx / fx_max;
  const S u2 = u * u;
  return fx / sqrt(sqrt(1.0 + u2 * u2));
}

// traction_limit(fx, fx_max) and its partials: d/dfx = (1 + u^4)^(-5/4), d/dfx_max = u^5 (1 + u^4)^(-5/4).
struct TractionPartials {
  double force = 0, fx = 0, fx_max = 0;
};
inline TractionPartials traction_limit_partials(double fx, double fx_max) {
  const double u = fx / fx_max;
  const double u4 = u * u * u * u;
  const double root = std::sqrt(std::sqrt(1.0 + u4));
  const double slope = 1.0 / (root * (1.0 + u4));
  return {fx / root, slope, u4 * u * slope};
}

// The Magic Formula combined-slip weighting function G = cos(C atan(B s)) / cos(C atan(B s0))
// (MF 5.2's G_yk and G_xa without shifts): how slip s in the other direction reduces a force;
// s0 = 0, so G = 1 at pure slip.
template <class S>
S combined_slip_weight(const S& B, const S& C, const S& other_slip) {
  using std::cos;
  return cos(C * atan_of(B * other_slip));
}

// Rolling resistance: a constant force against the motion, its sign smoothed within
// `speed_width` of standstill so the car does not chatter at rest.
template <class S>
S rolling_resistance(const S& coefficient, const S& vx, double speed_width) {
  return coefficient * smooth_sign(vx, speed_width);
}

}  // namespace simgrad::vehicle
