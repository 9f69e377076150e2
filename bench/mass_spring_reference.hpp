// A hand-written plain C++ mass-spring loop: the same physics as sims/softbody (Hooke spring with
// dashpot, semi-implicit Euler with drag and gravity, softplus penalty ground with smoothed
// friction), written the way one would without an engine: one loop over springs scattering
// forces into nodes, one loop over nodes. `simgrad bench` times the engine's forward pass against
// it, in the same binary.
#pragma once

#include <span>
#include <vector>

#include "sims/softbody/mass_spring_model.hpp"

namespace simgrad::app {

// Runs `steps` steps of the 3D model from its initial state; returns the final state
// [positions, velocities]. Supports penalty planes only.
std::vector<double> reference_mass_spring_rollout(const softbody::MassSpringModel<3>& model, int steps);

}  // namespace simgrad::app
