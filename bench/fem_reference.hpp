// A hand-written plain C++ FEM loop: the same physics as sims/softbody's explicit FEM (linear
// tetrahedra, neo-Hookean or corotated material, no damping stress, semi-implicit Euler with
// Rayleigh mass damping, gravity and pinned nodes), written the way one would without an engine:
// one loop over elements scattering forces into nodes, one loop over nodes. `simgrad bench`
// times the engine's forward pass against it, in the same binary.
#pragma once

#include <vector>

#include "sims/fem/model.hpp"

namespace simgrad::app {

// Runs `steps` steps of the 3D model from its initial state; returns the final state
// [positions, velocities]. Supports models without planes and without stiffness damping.
std::vector<double> reference_fem_rollout(const fem::FemModel<3>& model, int steps);

}  // namespace simgrad::app
