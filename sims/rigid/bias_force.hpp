// Inverse dynamics by recursive Newton-Euler: the generalised forces that give accelerations
// qacc against gravity, Coriolis and centrifugal effects and the external forces on the bodies
// (Featherstone, Rigid Body Dynamics Algorithms, 5.3, with gravity as an upward acceleration of
// the base). With qacc = 0 they are the bias forces the forward dynamics subtract.
//
//   a_b = a_parent(b) + sum over b's dofs of  (S'_d qvel_d + S_d qacc_d)     (a_world = -g)
//   f_b = I_b a_b + v_b x* (I_b v_b) - f_ext,b,   summed from the leaves to the root
//   tau_d = S_d . f_body(d)
#pragma once

#include "sims/rigid/workspace.hpp"

namespace simgrad::rigid {

// w.bias = the forces for accelerations qacc (null: zero) from the velocities, gravity and
// w.external; also fills w.acceleration and w.force.
template <class S>
void inverse_dynamics(const RigidModel& m, const RigidTree& t, const S* qvel, const S* qacc, RigidWorkspace<S>& w) {
  w.acceleration[0] = {Vec3<S>::zero(), Vec3<S>::from(-1.0 * m.settings.gravity)};
  w.force[0] = Spatial<S>::zero();
  for (int b = 1; b < t.bodies; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    Spatial<S> a = w.acceleration[static_cast<std::size_t>(t.parent[ub])];
    const Body& body = m.bodies[ub];
    for (int j = body.first_joint; j < body.first_joint + body.joint_count; ++j) {
      const Joint& joint = m.joints[static_cast<std::size_t>(j)];
      for (int d = joint.dof_address; d < joint.dof_address + velocity_count(joint.type); ++d) {
        a += qvel[d] * w.axis_rate[static_cast<std::size_t>(d)];
        if (qacc != nullptr) a += qacc[d] * w.axis[static_cast<std::size_t>(d)];
      }
    }
    w.acceleration[ub] = a;
    const Spatial<S>& v = w.velocity[ub];
    w.force[ub] = w.inertia[ub] * a + force_cross(v, w.inertia[ub] * v);
    w.force[ub] -= w.external[ub];
  }
  for (int b = t.bodies - 1; b > 0; --b) w.force[static_cast<std::size_t>(t.parent[static_cast<std::size_t>(b)])] += w.force[static_cast<std::size_t>(b)];
  for (int d = 0; d < t.nv; ++d)
    w.bias[static_cast<std::size_t>(d)] = power(w.axis[static_cast<std::size_t>(d)], w.force[static_cast<std::size_t>(t.dof_body[static_cast<std::size_t>(d)])]);
}

// The bias forces: inverse dynamics at zero acceleration.
template <class S>
void bias_forces(const RigidModel& m, const RigidTree& t, const S* qvel, RigidWorkspace<S>& w) {
  inverse_dynamics<S>(m, t, qvel, nullptr, w);
}

}  // namespace simgrad::rigid
