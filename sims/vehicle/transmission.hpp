// Transmission: gears with ratios, a smooth shift model and the final drive. The gear in use
// follows road speed; each upshift is a logistic step in the ratio, so force is smooth in speed
// and in the ratios (a hard gear switch would give the gradient nothing to follow).
#pragma once

#include <numbers>
#include <vector>

#include "sims/vehicle/smooth.hpp"

namespace simgrad::vehicle {

struct Gearbox {
  std::vector<double> ratios;  // first gear first; empty: a direct drive of ratio 1
  double shift_rpm = 6000.0;   // engine speed at which the next gear takes over
  double shift_width = 0.05;   // width of a shift, relative to its wheel speed
};

// Gear ratio times final drive at wheel speed `wheel_omega` (rad/s): gear k hands over to gear
// k+1 around the wheel speed at which gear k turns the engine at shift_rpm.
template <class S>
S overall_ratio(const Gearbox& box, const S& final_drive, const S& wheel_omega) {
  if (box.ratios.empty()) return final_drive;
  S ratio = S(box.ratios.front());
  for (std::size_t k = 0; k + 1 < box.ratios.size(); ++k) {
    const S shift_omega = (box.shift_rpm * std::numbers::pi / 30.0) / (box.ratios[k] * final_drive);
    const S step = sigmoid((wheel_omega - shift_omega) / (box.shift_width * shift_omega));
    ratio = ratio + (box.ratios[k + 1] - box.ratios[k]) * step;
  }
  return ratio * final_drive;
}

// Engine speed in rpm at wheel speed `wheel_omega` through `ratio` (gear times final drive).
template <class S>
S engine_rpm(const S& wheel_omega, const S& ratio) {
  return wheel_omega * ratio * (30.0 / std::numbers::pi);
}

}  // namespace simgrad::vehicle
