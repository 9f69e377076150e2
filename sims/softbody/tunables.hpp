// The tunables table of the mass-spring model: every quantity a scenario may tune, declared
// once (tune/tunable.hpp binds them).
#pragma once

#include "sims/softbody/mass_spring_model.hpp"
#include "tune/tunable.hpp"

namespace simgrad::softbody {

// Stiffness, damping and rest length per spring, actuation per step and actuator, gravity, and
// the initial positions and velocities per node.
template <int D>
const tune::TunableTable<MassSpringModel<D>>& mass_spring_tunables();

}  // namespace simgrad::softbody
