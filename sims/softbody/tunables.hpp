// The tunables table of the mass-spring model: every quantity a scenario may tune, declared
// once (tune/tunable.hpp binds them).
#pragma once

#include <string>

#include "sims/softbody/mass_spring_model.hpp"
#include "tune/tunable.hpp"

namespace simgrad::softbody {

// Stiffness, damping and rest length per spring, actuation per step and actuator, gravity, and
// the initial positions and velocities per node.
template <int D>
const tune::TunableTable<MassSpringModel<D>>& mass_spring_tunables();

// The rows every body of nodes has (a mass-spring or an FEM body): gravity, and each node's
// position and velocity at step 0 (`nodes` says where the positions come from by default).
template <class Model>
void append_node_tunables(tune::TunableTable<Model>& table, const std::string& nodes) {
  using tune::TunableDefault;
  table.push_back({{"gravity", "m/s^2", "model", "gravitational acceleration vector", TunableDefault::number(0.0)},
                   [](Model& m) { return tune::array_storage(m.gravity); }});
  table.push_back({{"initial_position", "m", "node", "position at step 0", TunableDefault::text(nodes)},
                   [](Model& m) { return tune::array_storage(m.initial_position); }});
  table.push_back({{"initial_velocity", "m/s", "node", "velocity at step 0", TunableDefault::number(0.0)},
                   [](Model& m) { return tune::array_storage(m.initial_velocity); }});
}

}  // namespace simgrad::softbody
