// What one world's step computes on the way, generic in the scalar: the tunable constants it
// reads (as scalars, so the derived adjoint sees them), body frames, dof axes, velocities,
// inertias, the mass matrix and the generalised forces. Sized once per model; a step allocates
// nothing.
#pragma once

#include <array>
#include <type_traits>
#include <vector>

#include "core/local_ad.hpp"
#include "sims/rigid/spatial.hpp"
#include "sims/rigid/tree.hpp"

namespace simgrad::rigid {

// The tunable constants one step reads.
template <class S>
struct RigidConstants {
  std::vector<S> body_mass;
  std::vector<S> dof_damping;
  std::vector<S> dof_armature;
  std::vector<S> joint_stiffness;
  std::vector<S> actuator_gear;
  std::vector<S> actuator_gain;
  std::vector<S> geom_friction;
  std::vector<S> contact_stiffness;
  std::vector<S> contact_damping;
  std::vector<S> restitution;
  std::vector<S> spring_stiffness;

  // The arrays in the order of RigidModel::constant_arrays.
  std::array<std::vector<S>*, 11> arrays() {
    return {&body_mass, &dof_damping, &dof_armature, &joint_stiffness, &actuator_gear, &actuator_gain, &geom_friction,
            &contact_stiffness, &contact_damping, &restitution, &spring_stiffness};
  }
  // Sizes every array as the model's.
  void resize(RigidModel& m) {
    const auto mine = arrays();
    const auto model = m.constant_arrays();
    for (std::size_t k = 0; k < mine.size(); ++k) mine[k]->resize(static_cast<std::size_t>(model[k]->size()));
  }
};

// Copies the model's constants into c, as scalars of c's type: new inputs on the local tape when
// S is ad::Var, so that the step's adjoint reaches them.
template <class S>
void read_constants(RigidModel& m, RigidConstants<S>& c) {
  const auto model = m.constant_arrays();
  const auto mine = c.arrays();
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const auto values = model[k]->values();
    for (std::size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_same_v<S, double>)
        (*mine[k])[i] = values[i];
      else
        (*mine[k])[i] = ad::Var::input(values[i]);
    }
  }
}

// The model's constants as plain numbers, for a step outside a rollout (tests, reports, setup).
inline RigidConstants<double> constants_of(RigidModel& m) {
  RigidConstants<double> c;
  c.resize(m);
  read_constants(m, c);
  return c;
}

template <class S>
struct RigidWorkspace {
  // Per body, world frame.
  std::vector<Quat<S>> xquat;
  std::vector<Mat3<S>> xmat;
  std::vector<Vec3<S>> xpos;
  std::vector<SpatialInertia<S>> inertia;    // the body's own
  std::vector<SpatialInertia<S>> composite;  // the body's subtree's
  std::vector<Spatial<S>> velocity;
  std::vector<Spatial<S>> acceleration;      // bias acceleration (qacc = 0), gravity included
  std::vector<Spatial<S>> force;             // net force the body's subtree needs (bias), minus external
  std::vector<Spatial<S>> external;          // applied by contact and fluid, about the origin
  // Per joint, world frame.
  std::vector<Vec3<S>> xanchor;
  std::vector<Vec3<S>> xaxis;  // hinge and slide
  // Per dof.
  std::vector<Spatial<S>> axis;              // cdof: the motion one unit of qvel makes
  std::vector<Spatial<S>> axis_rate;         // its time derivative
  std::vector<S> bias;                       // Coriolis, centrifugal and gravity
  std::vector<S> applied;                    // passive + actuator + contact
  std::vector<S> mass_matrix;                // nv x nv, then its Cholesky factor (lower)
  std::vector<S> qacc;
  // Runge-Kutta stages: a stage's state, and the velocities and accelerations of each stage.
  std::vector<S> stage_qpos;
  std::vector<S> stage_qvel;
  std::vector<S> stage_velocities;     // 4 x nv
  std::vector<S> stage_accelerations;  // 4 x nv
  // Substeps: the state between them.
  std::vector<S> substep_state;
  std::vector<S> substep_next;
  // Impulse contact: the configuration at an impact, a contact's Jacobian rows (normal and two
  // tangents, nv each) and M^-1 times each.
  std::vector<S> impact_qpos;
  std::vector<S> jacobian;
  std::vector<S> response;
  // Soft nodes: the force on each (3 per node), gravity aside.
  std::vector<S> node_force;

  // Sizes every array for the model (a no-op when already sized for it).
  void resize(const RigidTree& t) {
    const auto b = static_cast<std::size_t>(t.bodies), v = static_cast<std::size_t>(t.nv);
    // A world's state: qpos, qvel, and each soft node's position and velocity.
    const auto n = static_cast<std::size_t>(t.nodes), state = static_cast<std::size_t>(t.nq) + v + 6 * n;
    if (xquat.size() == b && qacc.size() == v && substep_state.size() == state && node_force.size() == 3 * n) return;
    xquat.resize(b);
    xmat.resize(b);
    xpos.resize(b);
    inertia.resize(b);
    composite.resize(b);
    velocity.resize(b);
    acceleration.resize(b);
    force.resize(b);
    external.resize(b);
    xanchor.resize(static_cast<std::size_t>(t.joints));
    xaxis.resize(static_cast<std::size_t>(t.joints));
    axis.resize(v);
    axis_rate.resize(v);
    bias.resize(v);
    applied.resize(v);
    mass_matrix.resize(v * v);
    qacc.resize(v);
    stage_qpos.resize(static_cast<std::size_t>(t.nq));
    stage_qvel.resize(v);
    stage_velocities.resize(4 * v);
    stage_accelerations.resize(4 * v);
    substep_state.resize(state);
    substep_next.resize(state);
    node_force.resize(3 * n);
    impact_qpos.resize(static_cast<std::size_t>(t.nq));
    jacobian.resize(3 * v);
    response.resize(3 * v);
  }
};

}  // namespace simgrad::rigid
