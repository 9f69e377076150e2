// The mass-spring model: what does not change during a rollout (topology, masses, contact
// planes, settings) and the parameters being tuned (stiffness, damping, rest lengths, actuation,
// gravity, initial state), each an Array whose adjoint the step accumulates into.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "core/incidence.hpp"
#include "sims/softbody/contact.hpp"

namespace simgrad::softbody {

struct MassSpringSettings {
  double dt = 1e-3;
  int steps = 1000;
  double drag = 0.0;            // velocity decays by exp(-drag dt) each step
  double length_epsilon = 0.0;  // added to spring lengths (DiffTaichi uses 1e-4)
  PenaltySettings penalty;
};

template <int D>
struct MassSpringModel {
  MassSpringSettings settings;
  Index node_count = 0;
  Incidence springs;                        // arity 2: the two end nodes of every spring
  // Arity 1: the actuator driving each spring; springs without one point at the extra, always
  // zero, entry actuator_count.
  Incidence spring_actuators;
  int actuator_count = 0;
  std::vector<ContactPlane<D>> planes;
  Array<1> inverse_mass;                    // 0 pins a node

  // Parameters.
  Array<1> stiffness;        // per spring, force per unit extension
  Array<1> damping;          // per spring, dashpot force per unit relative speed
  Array<1> rest_length;      // per spring
  Array<1> actuation;        // per step and actuator: relative change of the rest length
  Array<D> gravity;          // one entry
  Array<D> initial_position;  // per node
  Array<D> initial_velocity;  // per node

  Index spring_count() const { return springs.elements(); }
  // A copy with every relaxation at its hard twin (the penalty contact's), for re-scoring a tuned
  // model on the hard one without changing it.
  MassSpringModel hard_twin() const;

  // Allocates per-node and per-spring arrays for `nodes` nodes and the given spring end points,
  // with unit masses, zero parameters and no actuators.
  void build(Index nodes, std::vector<std::int32_t> spring_ends, int steps);
  // Sets the actuator of every spring (-1: none) and the number of actuators.
  void set_actuators(const std::vector<std::int32_t>& actuator_of_spring, int actuators);
  // Makes the adjoints of the given parameter arrays available (the rest are not differentiated).
  void enable_adjoints(bool stiffness_, bool damping_, bool rest_length_, bool actuation_, bool gravity_,
                       bool initial_position_, bool initial_velocity_);
};

// Mesh builders. Each returns a model with positions, springs and default parameters set.

// The three-mass triangle of DiffTaichi's mass_spring_simple.
MassSpringModel<2> make_difftaichi_triangle();
// A 3D jelly block of nx * ny * nz nodes with edge, face-diagonal and body-diagonal springs.
MassSpringModel<3> make_jelly_block(int nx, int ny, int nz, double spacing, Vec<double, 3> origin, int steps);
// A 2D lattice of nx * ny nodes with edge and diagonal springs.
MassSpringModel<2> make_lattice_2d(int nx, int ny, double spacing, Vec<double, 2> origin, int steps);

}  // namespace simgrad::softbody
