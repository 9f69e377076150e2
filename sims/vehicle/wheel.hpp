// A wheel of the four-wheel model: the velocity of its contact patch in the wheel's own frame,
// its slip ratio and slip angle (with a low-speed rounding so a car at rest divides by nothing),
// the combined-slip Magic Formula forces, and its spin under drive, brake and road torques.
#pragma once

#include <array>
#include <cmath>

#include "sims/vehicle/smooth.hpp"
#include "sims/vehicle/tire.hpp"

namespace simgrad::vehicle {

// Contact-patch velocity along the wheel's heading and across it.
template <class S>
struct WheelVelocity {
  S along, across;
};

// The body's velocity (vx, vy, yaw rate r) carried to a corner at (px, py) from the centre of
// mass and turned into the frame of a wheel steered by `steer`.
template <class S>
WheelVelocity<S> wheel_velocity(const S& vx, const S& vy, const S& r, const S& px, const S& py, const S& steer) {
  using std::cos;
  using std::sin;
  const S cx = vx - r * py, cy = vy + r * px;
  const S c = cos(steer), sn = sin(steer);
  return {c * cx + sn * cy, c * cy - sn * cx};
}

// Slip ratio (omega R - v) / |v|, with |v| rounded to at least `slip_speed` so that it stays
// finite at standstill (there a spinning wheel's force grows with its speed, not without bound).
template <class S>
S slip_ratio(const S& omega, double radius, const S& along, double slip_speed) {
  return (omega * radius - along) / smooth_abs(along, slip_speed);
}

// Slip angle -atan(v_across / |v_along|), |v_along| rounded as in slip_ratio.
template <class S>
S slip_angle(const WheelVelocity<S>& v, double slip_speed) {
  return -atan_of(v.across / smooth_abs(v.along, slip_speed));
}

// One tire's Magic Formulas: lateral and longitudinal, and the combined-slip weights G_xa
// (slip angle reducing Fx: Bx, Cx) and G_yk (slip ratio reducing Fy: By, Cy).
template <class S>
struct TireSet {
  MagicFormula<S> lateral, longitudinal;
  S bx, cx, by, cy;
};

// The tire's forces (longitudinal, lateral, in the wheel frame) at slip ratio kappa, slip angle
// alpha and load fz: each pure-slip Magic Formula force times the other direction's weight.
template <class S>
std::array<S, 2> combined_tire_forces(const TireSet<S>& t, const S& kappa, const S& alpha, const S& fz,
                                      double nominal_load) {
  const S fx = pacejka_force(t.longitudinal, kappa, fz, nominal_load) * combined_slip_weight(t.bx, t.cx, alpha);
  const S fy = pacejka_force(t.lateral, alpha, fz, nominal_load) * combined_slip_weight(t.by, t.cy, kappa);
  return {fx, fy};
}

// The wheel speed after one step of I domega/dt = drive - brake(omega) - R Fx(omega). A tire's
// slip stiffness makes this equation stiff (at 20 m/s a road wheel relaxes in milliseconds), so
// the step is linearly implicit: the road and brake torques' slopes in omega (the tire's slope
// at zero slip, `slip_stiffness` = dFx/dkappa, an upper bound of its true slope) join the
// inertia. Brake torque opposes the spin, its sign smoothed within `speed_width` of the rim
// speed, so a braked wheel stops without chatter.
template <class S>
S wheel_spin_step(const S& omega, const S& inertia, const S& drive_torque, const S& max_brake_torque, const S& fx,
                  const S& slip_stiffness, const S& slip_denominator, double radius, double speed_width, double dt) {
  using std::tanh;
  const S sign = tanh(omega * (radius / speed_width));
  const S brake_slope = max_brake_torque * (1.0 - sign * sign) * (radius / speed_width);
  const S road_slope = slip_stiffness * (radius * radius) / slip_denominator;
  return omega + dt * (drive_torque - max_brake_torque * sign - radius * fx) / (inertia + dt * (road_slope + brake_slope));
}

// The longitudinal force at the new wheel speed, linearised as in wheel_spin_step: the force the
// wheel's own update used, so the body receives exactly the force that slowed or spun the wheel
// (the explicit force would leak energy between them when the wheel's relaxation is stiff).
template <class S>
S tire_force_after_spin(const S& fx, const S& slip_stiffness, const S& slip_denominator, double radius, const S& omega,
                        const S& omega_next) {
  return fx + slip_stiffness * (radius * (omega_next - omega)) / slip_denominator;
}

}  // namespace simgrad::vehicle
