// Aerodynamics: drag against the motion and downforce, both quadratic in speed. Coefficients
// fold in air density and area: drag = c_d vx |vx| (c_d = rho Cd A / 2), downforce = c_l vx^2.
#pragma once

#include "sims/vehicle/smooth.hpp"

namespace simgrad::vehicle {

// Drag force along -vx; |vx| is rounded within 1 mm/s so the force is smooth at rest.
template <class S>
S aero_drag(const S& drag_coefficient, const S& vx) {
  return drag_coefficient * vx * smooth_abs(vx, 1e-3);
}

// Downforce, pressing the car onto the road.
template <class S>
S aero_downforce(const S& downforce_coefficient, const S& vx) {
  return downforce_coefficient * vx * vx;
}

}  // namespace simgrad::vehicle
