// The differential of a driven axle: how the drive torque splits between the left and right
// wheels. Open: half each, whatever the wheels do. Limited slip (viscous coupling): the faster
// wheel hands torque to the slower one in proportion to their speed difference, so an unloaded
// inner wheel cannot take all the engine's speed while passing on none of its torque.
#pragma once

#include <array>

namespace simgrad::vehicle {

// Torques (left, right) from axle torque `torque` at wheel speeds omega_left and omega_right;
// `locking` (N m s/rad) is the coupling, 0 for an open differential. The sum is always `torque`.
template <class S>
std::array<S, 2> differential_split(const S& torque, const S& omega_left, const S& omega_right, const S& locking) {
  const S transfer = 0.5 * locking * (omega_left - omega_right);
  return {0.5 * torque - transfer, 0.5 * torque + transfer};
}

}  // namespace simgrad::vehicle
