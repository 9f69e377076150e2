// Kinematics: from joint positions to body frames, from those to world-frame inertias and dof
// axes, and from joint velocities to body velocities (MuJoCo's mj_kinematics, mj_comPos and
// mj_comVel, with spatial quantities about the world origin instead of a subtree's centre), and
// positions advanced by velocities over a time (MuJoCo's mj_integratePos).
//
// A body's frame is its parent's composed with its fixed pose, then with each of its joints in
// order: a slide moves it along the axis by q - q0, a hinge turns it about the anchor by q - q0,
// a ball turns it about the anchor by its quaternion, a free joint sets its pose outright.
#pragma once

#include "sims/rigid/workspace.hpp"

namespace simgrad::rigid {

// Body frames and joint anchors from qpos.
template <class S>
void forward_kinematics(const RigidModel& m, const S* qpos, RigidWorkspace<S>& w) {
  w.xquat[0] = {{S(1.0), S(0.0), S(0.0), S(0.0)}};
  w.xmat[0] = Mat3<S>::identity();
  w.xpos[0] = Vec3<S>::zero();
  for (std::size_t b = 1; b < m.bodies.size(); ++b) {
    const Body& body = m.bodies[b];
    const auto p = static_cast<std::size_t>(body.parent);
    Quat<S> q = quat_multiply(w.xquat[p], Quat<S>::from(body.quat));
    Vec3<S> x = w.xpos[p] + w.xmat[p] * Vec3<S>::from(body.pos);
    for (int j = body.first_joint; j < body.first_joint + body.joint_count; ++j) {
      const Joint& joint = m.joints[static_cast<std::size_t>(j)];
      const S* qj = qpos + joint.qpos_address;
      const double q0 = m.qpos0[static_cast<std::size_t>(joint.qpos_address)];
      const Mat3<S> r = rotation_matrix(q);
      const Vec3<S> anchor = x + r * Vec3<S>::from(joint.pos);
      const Vec3<S> axis = r * Vec3<S>::from(joint.axis);
      switch (joint.type) {
        case JointType::kFree:
          x = {{qj[0], qj[1], qj[2]}};
          q = normalized(Quat<S>{{qj[3], qj[4], qj[5], qj[6]}});
          break;
        case JointType::kBall:
          q = normalized(quat_multiply(q, normalized(Quat<S>{{qj[0], qj[1], qj[2], qj[3]}})));
          x = anchor - rotation_matrix(q) * Vec3<S>::from(joint.pos);
          break;
        case JointType::kSlide:
          x += (qj[0] - q0) * axis;
          break;
        case JointType::kHinge:
          q = normalized(quat_multiply(q, axis_angle(Vec3<S>::from(joint.axis), qj[0] - q0)));
          x = anchor - rotation_matrix(q) * Vec3<S>::from(joint.pos);
          break;
      }
      w.xanchor[static_cast<std::size_t>(j)] = joint.type == JointType::kFree ? x : anchor;
      w.xaxis[static_cast<std::size_t>(j)] = axis;
    }
    w.xquat[b] = q;
    w.xmat[b] = rotation_matrix(q);
    w.xpos[b] = x;
  }
}

// A point of body `body` (in its frame) in the world, once forward_kinematics has set the frames.
template <class S>
Vec3<S> world_point(const RigidWorkspace<S>& w, int body, const Vec3<double>& point) {
  const auto b = static_cast<std::size_t>(body);
  return w.xpos[b] + w.xmat[b] * Vec3<S>::from(point);
}

// World-frame body inertias and dof axes, once the frames are known.
template <class S>
void inertias_and_axes(const RigidModel& m, const RigidConstants<S>& c, RigidWorkspace<S>& w) {
  w.inertia[0] = SpatialInertia<S>::zero();
  for (std::size_t b = 1; b < m.bodies.size(); ++b) {
    const Body& body = m.bodies[b];
    const Mat3<S>& r = w.xmat[b];
    const Vec3<S> centre = w.xpos[b] + r * Vec3<S>::from(body.centre);
    Mat3<S> rotated = r * (Mat3<S>::from(body.unit_inertia) * Mat3<S>{{r.m[0], r.m[3], r.m[6], r.m[1], r.m[4], r.m[7], r.m[2], r.m[5], r.m[8]}});
    for (S& x : rotated.m) x = c.body_mass[b] * x;
    w.inertia[b] = spatial_inertia(c.body_mass[b], centre, rotated);
  }
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& joint = m.joints[j];
    const auto b = static_cast<std::size_t>(joint.body);
    const Vec3<S>& anchor = w.xanchor[j];
    Spatial<S>* axis = w.axis.data() + joint.dof_address;
    // A rotation about unit axis a through point p moves the origin with velocity p x a.
    auto rotation = [&anchor](const Vec3<S>& a) { return Spatial<S>{a, cross(anchor, a)}; };
    auto column = [&w, b](int k) { return Vec3<S>{{w.xmat[b].m[k], w.xmat[b].m[3 + k], w.xmat[b].m[6 + k]}}; };
    switch (joint.type) {
      case JointType::kFree:
        for (int k = 0; k < 3; ++k) axis[k] = {Vec3<S>::zero(), Vec3<S>::unit(k)};
        for (int k = 0; k < 3; ++k) axis[3 + k] = rotation(column(k));
        break;
      case JointType::kBall:
        for (int k = 0; k < 3; ++k) axis[k] = rotation(column(k));
        break;
      case JointType::kSlide:
        axis[0] = {Vec3<S>::zero(), w.xaxis[j]};
        break;
      case JointType::kHinge:
        axis[0] = rotation(w.xaxis[j]);
        break;
    }
  }
}

// Body velocities from qvel, and the rates at which the dof axes turn with their bodies.
template <class S>
void body_velocities(const RigidModel& m, const RigidTree& t, const S* qvel, RigidWorkspace<S>& w) {
  w.velocity[0] = Spatial<S>::zero();
  for (std::size_t b = 1; b < m.bodies.size(); ++b) {
    Spatial<S> v = w.velocity[static_cast<std::size_t>(t.parent[b])];
    const Body& body = m.bodies[b];
    for (int j = body.first_joint; j < body.first_joint + body.joint_count; ++j) {
      const Joint& joint = m.joints[static_cast<std::size_t>(j)];
      int d = joint.dof_address;
      const int end = d + velocity_count(joint.type);
      if (joint.type == JointType::kFree) {
        // Translations along the world axes do not turn.
        for (; d < joint.dof_address + 3; ++d) {
          w.axis_rate[static_cast<std::size_t>(d)] = Spatial<S>::zero();
          v += qvel[d] * w.axis[static_cast<std::size_t>(d)];
        }
      }
      // The axes of one joint turn with the velocity from before the joint: the extra terms
      // the joint's own motion would add cancel in the sum over its dofs.
      for (int k = d; k < end; ++k) w.axis_rate[static_cast<std::size_t>(k)] = motion_cross(v, w.axis[static_cast<std::size_t>(k)]);
      for (int k = d; k < end; ++k) v += qvel[k] * w.axis[static_cast<std::size_t>(k)];
    }
    w.velocity[b] = v;
  }
}

// out = qpos advanced by velocity qvel over dt: linear coordinates add, quaternions turn by the
// body-frame rotation vector (MuJoCo's mj_integratePos).
// dt is a number or a scalar (a time of impact, impulse_contact.hpp); out may be qpos.
template <class S, class Time>
void integrate_positions(const RigidModel& m, const S* qpos, const S* qvel, const Time& dt, S* out) {
  for (int i = 0; i < m.nq; ++i) out[i] = qpos[i];
  for (const Joint& joint : m.joints) {
    S* q = out + joint.qpos_address;
    const S* v = qvel + joint.dof_address;
    int rotation_at = -1;
    switch (joint.type) {
      case JointType::kFree:
        for (int k = 0; k < 3; ++k) q[k] = q[k] + dt * v[k];
        q += 3;
        v += 3;
        rotation_at = 0;
        break;
      case JointType::kBall:
        rotation_at = 0;
        break;
      case JointType::kSlide:
      case JointType::kHinge:
        q[0] = q[0] + dt * v[0];
        break;
    }
    if (rotation_at < 0) continue;
    const Quat<S> turned = integrate_rotation(normalized(Quat<S>{{q[0], q[1], q[2], q[3]}}), Vec3<S>{{dt * v[0], dt * v[1], dt * v[2]}});
    for (int k = 0; k < 4; ++k) q[k] = turned.c[k];
  }
}

}  // namespace simgrad::rigid
