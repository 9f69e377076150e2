// A hand-written MLS-MPM loop for `simgrad bench` to compare the engine's forward pass with: the
// same physics as sims/mpm for fixed-corotated particles in 2D (no actuation, colliders or
// relaxations), written as the 88-line style loop users write by hand, one thread, the
// particle-to-grid transfer a plain scatter in particle order.
#pragma once

#include <vector>

#include "sims/mpm/model.hpp"

namespace simgrad::app {

// The final state of `steps` steps of `model` (all particles fixed corotated), laid out as the
// engine's state.
std::vector<double> reference_mpm_rollout(const mpm::MpmModel<2>& model, int steps);

}  // namespace simgrad::app
