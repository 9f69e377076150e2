// Forces along the joints: passive springs and dampers, and actuators (MuJoCo's mj_passive for
// joints and mj_fwdActuation for joint transmissions).
//
//   spring   f = -k (q - q_spring)            (hinge and slide)
//   damper   f = -b qdot                       (every dof)
//   motor    f = gear ctrl
//   position f = gear kp (ctrl - gear q)
//   velocity f = gear kv (ctrl - gear qdot)
//   limit    f = k_l softplus_w(lo - q) - k_l softplus_w(q - hi) - b_l s_w(violation) qdot
// A limited control is clamped to its range first, a limited actuator force to its range after.
// Limits are penalty springs that switch on over the contact width w, like contact, with the
// same hard twin at w = 0 (MuJoCo's are soft constraints: the same inside the range, where the
// MuJoCo comparisons run).
#pragma once

#include "core/relax.hpp"
#include "sims/rigid/workspace.hpp"

namespace simgrad::rigid {

// Clamps x to [lo, hi].
template <class S>
S clamp_to(const S& x, double lo, double hi) {
  return value_of(x) < lo ? S(lo) : value_of(x) > hi ? S(hi) : x;
}

// The force of a joint's limits at coordinate q and velocity qdot.
template <class S>
S limit_force(const Joint& joint, const S& q, const S& qdot, double width) {
  const double beta = width > 0.0 ? 1.0 / width : 0.0;
  const S below = joint.range[0] - q, above = q - joint.range[1];  // positive when violated
  const S push = relax::penalty_force(-below, joint.limit_stiffness, beta) - relax::penalty_force(-above, joint.limit_stiffness, beta);
  const S engaged = relax::threshold(below, width) + relax::threshold(above, width);
  return push - joint.limit_damping * engaged * qdot;
}

// w.applied = passive joint forces + actuator forces for controls `ctrl`.
template <class S>
void joint_forces(const RigidModel& m, const RigidConstants<S>& c, const S* qpos, const S* qvel, const S* ctrl,
                  RigidWorkspace<S>& w) {
  for (int d = 0; d < m.nv; ++d) w.applied[static_cast<std::size_t>(d)] = -c.dof_damping[static_cast<std::size_t>(d)] * qvel[d];
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& joint = m.joints[j];
    if (joint.type != JointType::kHinge && joint.type != JointType::kSlide) continue;
    const auto d = static_cast<std::size_t>(joint.dof_address);
    const S& q = qpos[joint.qpos_address];
    w.applied[d] = w.applied[d] - c.joint_stiffness[j] * (q - joint.spring_reference);
    if (joint.limited) w.applied[d] = w.applied[d] + limit_force(joint, q, qvel[joint.dof_address], m.settings.contact.width);
  }
  for (std::size_t a = 0; a < m.actuators.size(); ++a) {
    const Actuator& actuator = m.actuators[a];
    const Joint& joint = m.joints[static_cast<std::size_t>(actuator.joint)];
    const S u = actuator.ctrl_limited ? clamp_to(ctrl[a], actuator.ctrl_range[0], actuator.ctrl_range[1]) : ctrl[a];
    const S& gear = c.actuator_gear[a];
    S force = u;  // a motor's
    switch (actuator.type) {
      case ActuatorType::kMotor:
        break;
      case ActuatorType::kPosition:
        force = c.actuator_gain[a] * (u - gear * qpos[joint.qpos_address]);
        break;
      case ActuatorType::kVelocity:
        force = c.actuator_gain[a] * (u - gear * qvel[joint.dof_address]);
        break;
    }
    if (actuator.force_limited) force = clamp_to(force, actuator.force_range[0], actuator.force_range[1]);
    const auto d = static_cast<std::size_t>(joint.dof_address);
    w.applied[d] = w.applied[d] + gear * force;
  }
}

}  // namespace simgrad::rigid
