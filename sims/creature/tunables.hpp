// The tunables of a creature's controller, as `simgrad list` and `describe` show them: the
// controller binds them itself (Controller::bind), every weight at once.
#pragma once

#include <vector>

#include "tune/tunable.hpp"

namespace simgrad::creature {

// The neural controller's weights and biases, then the sine bank's amplitude, phase and bias.
const std::vector<tune::TunableInfo>& controller_tunables();

}  // namespace simgrad::creature
