// Suspension of the four-wheel model: each corner's compression from the body's heave, roll and
// pitch; the strut's force (spring, damper, bump stop) and the anti-roll bars' forces; and the
// generalised forces they put back on the body. Roll and pitch are small angles about axes at
// road level, so the closed forms of load transfer hold (m a h / track, split by roll stiffness).
#pragma once

#include <array>

#include "sims/vehicle/smooth.hpp"

namespace simgrad::vehicle {

// Compression (positive: body towards the road) of the corner at (px, py) from the centre of
// mass, for heave z (down), roll phi (towards the right, -y) and pitch theta (nose down); the
// same linear map turns rates into compression rates.
template <class S>
S corner_compression(const S& heave, const S& roll, const S& pitch, const S& px, const S& py) {
  return heave + pitch * px - roll * py;
}

// One strut's force beyond its static preload: spring, damper and, past the gap, a bump stop
// that stiffens quadratically (C1 at contact, so the gradient has no jump).
template <class S>
S strut_force(const S& spring, const S& damper, const S& gap, const S& bump_stiffness, const S& compression,
              const S& rate) {
  S f = spring * compression + damper * rate;
  if (value_of(compression) > value_of(gap)) {
    const S over = compression - gap;
    f = f + bump_stiffness * over * over;
  }
  return f;
}

// The anti-roll bar's force on the left corner of an axle (the right one gets its negative):
// the bar resists only a difference in compression, so it stiffens roll and leaves heave alone.
template <class S>
S anti_roll_force(const S& stiffness, const S& left_compression, const S& right_compression) {
  return stiffness * (left_compression - right_compression);
}

// Generalised forces (heave, roll, pitch) on the body of corner forces f at (px, py): minus the
// forces times each corner's compression per unit coordinate (1, -py, px).
template <class S>
std::array<S, 3> suspension_body_forces(const std::array<S, 4>& f, const std::array<S, 4>& px,
                                        const std::array<S, 4>& py) {
  S heave = -f[0], roll = f[0] * py[0], pitch = -(f[0] * px[0]);
  for (int i = 1; i < 4; ++i) {
    heave = heave - f[i];
    roll = roll + f[i] * py[i];
    pitch = pitch - f[i] * px[i];
  }
  return {heave, roll, pitch};
}

// A tire's load: the corner's static load plus its suspension force, kept positive by a smooth
// floor `width` wide, so a lifted wheel has (almost) no load and a finite gradient.
template <class S>
S tire_load(const S& static_load, const S& suspension, const S& width) {
  using std::sqrt;
  const S f = static_load + suspension;
  return 0.5 * (f + sqrt(f * f + width * width));
}

}  // namespace simgrad::vehicle
