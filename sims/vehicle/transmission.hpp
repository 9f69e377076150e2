// Transmission: gears with ratios, a smooth shift model and the final drive. The gear in use
// follows road speed; each upshift is a logistic step in the ratio, so force is smooth in speed
// and in the ratios (a hard gear switch would give the gradient nothing to follow).
#pragma once

#include <numbers>
#include <span>

#include "sims/vehicle/smooth.hpp"

namespace simgrad::vehicle {

struct ShiftModel {
  double shift_rpm = 6000.0;  // engine speed at which the next gear takes over
  double shift_width = 0.05;  // width of a shift, relative to its wheel speed
};

// Gear ratio times final drive at wheel speed `wheel_omega` (rad/s), with `ratios` the gears,
// first gear first (none: a direct drive): gear k hands over to gear k+1 around the wheel speed
// at which gear k turns the engine at shift_rpm. Ratios are scalars so they can be tuned.
template <class S>
S overall_ratio(std::span<const S> ratios, const ShiftModel& shift, const S& final_drive, const S& wheel_omega) {
  if (ratios.empty()) return final_drive;
  S ratio = ratios[0];
  for (std::size_t k = 0; k + 1 < ratios.size(); ++k) {
    const S shift_omega = (shift.shift_rpm * std::numbers::pi / 30.0) / (ratios[k] * final_drive);
    const S step = sigmoid((wheel_omega - shift_omega) / (shift.shift_width * shift_omega));
    ratio = ratio + (ratios[k + 1] - ratios[k]) * step;
  }
  return ratio * final_drive;
}

// Engine speed in rpm at wheel speed `wheel_omega` through `ratio` (gear times final drive).
template <class S>
S engine_rpm(const S& wheel_omega, const S& ratio) {
  return wheel_omega * ratio * (30.0 / std::numbers::pi);
}

}  // namespace simgrad::vehicle
