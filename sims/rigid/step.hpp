// One step of a rigid world, generic in the scalar: the dynamics as a list of stages, and the
// integrators (MuJoCo's Euler, semi-implicit with implicit joint damping, and its RK4).
//
// A world's state is [qpos (nq), qvel (nv), soft node positions and velocities (3 each)]. The
// stages of one evaluation of the dynamics, in order, each in its own header:
//   forward_kinematics   body frames from qpos                       kinematics.hpp
//   inertias_and_axes    world inertias and dof axes                 kinematics.hpp
//   body_velocities      body velocities and axis rates from qvel    kinematics.hpp
//   mass_matrix          composite-rigid-body mass matrix            mass_matrix.hpp
//   contact_forces       penalty contact and friction on the bodies  contact_force.hpp
//                        (impulse contact instead acts after the velocity update, at each
//                        time of impact: impulse_contact.hpp)
//   soft_forces          soft parts' springs, anchors and ground     soft_force.hpp
//   body_spring_forces   springs between bodies                      body_spring_force.hpp
//   fluid_forces         viscosity and drag on the bodies            fluid_force.hpp
//   bias_forces          Newton-Euler gravity and velocity terms     bias_force.hpp
//   joint_forces         springs, dampers, actuators                 joint_force.hpp
//   solve                (M + dt D) qacc = applied - bias            mass_matrix.hpp
// Soft nodes move by semi-implicit Euler beside the bodies (Euler integrator and penalty contact
// only: RigidWorlds refuses the others with soft parts).
// The adjoint is derived: the whole step re-runs on the local tape (core/local_ad.hpp), except
// the solve, whose adjoint is written by hand (mass_matrix.hpp).
#pragma once

#include "sims/rigid/bias_force.hpp"
#include "sims/rigid/body_spring_force.hpp"
#include "sims/rigid/contact_force.hpp"
#include "sims/rigid/fluid_force.hpp"
#include "sims/rigid/impulse_contact.hpp"
#include "sims/rigid/joint_force.hpp"
#include "sims/rigid/kinematics.hpp"
#include "sims/rigid/mass_matrix.hpp"
#include "sims/rigid/soft_force.hpp"

namespace simgrad::rigid {

// w.qacc from (qpos, qvel, ctrl), and w.node_force from the soft nodes' positions and velocities
// (`nodes`, null without soft parts); implicit_dt > 0 takes joint damping implicitly over that
// step. False when the mass matrix is not positive definite (a moving body without mass or
// inertia).
template <class S>
bool accelerations(const RigidModel& m, const RigidTree& t, const RigidConstants<S>& c, const S* qpos, const S* qvel,
                   const S* ctrl, double implicit_dt, RigidWorkspace<S>& w, const S* nodes = nullptr) {
  forward_kinematics(m, qpos, w);
  inertias_and_axes(m, c, w);
  body_velocities(m, t, qvel, w);
  mass_matrix(t, c, w);
  for (Spatial<S>& f : w.external) f = Spatial<S>::zero();
  if (m.settings.contact.model == ContactModel::kPenalty) contact_forces(m, c, w);
  if (nodes != nullptr) soft_forces(m, c, nodes, nodes + 3 * t.nodes, w);
  body_spring_forces(m, c, w);
  fluid_forces(m, c, w);
  bias_forces(m, t, qvel, w);
  joint_forces(m, c, qpos, qvel, ctrl, w);
  const auto nv = static_cast<std::size_t>(t.nv);
  if (implicit_dt > 0.0)
    for (std::size_t d = 0; d < nv; ++d) w.mass_matrix[d * nv + d] = w.mass_matrix[d * nv + d] + implicit_dt * c.dof_damping[d];
  return solve_accelerations(t.nv, w);
}

// The soft nodes' next positions and velocities (3 n each, from `nodes`) by semi-implicit Euler
// under w.node_force and gravity.
template <class S>
void integrate_nodes(const RigidModel& m, const S* nodes, double dt, S* next, RigidWorkspace<S>& w) {
  const std::size_t n = m.soft_nodes.size();
  const S* x = nodes;
  const S* v = nodes + 3 * n;
  S* next_x = next;
  S* next_v = next + 3 * n;
  for (std::size_t i = 0; i < n; ++i) {
    const double inverse_mass = 1.0 / m.soft_nodes[i].mass;
    for (std::size_t k = 0; k < 3; ++k) {
      const std::size_t j = 3 * i + k;
      next_v[j] = v[j] + dt * (w.node_force[j] * inverse_mass + m.settings.gravity.c[k]);
      next_x[j] = x[j] + dt * next_v[j];
    }
  }
}

// next = one integrator step of dt from state under controls ctrl; false when a mass matrix was
// singular.
template <class S>
bool integrator_step(const RigidModel& m, const RigidTree& t, const RigidConstants<S>& c, const S* state, const S* ctrl,
                     double dt, S* next, RigidWorkspace<S>& w) {
  const int nq = t.nq, nv = t.nv;
  const S* qpos = state;
  const S* qvel = state + nq;
  S* next_qvel = next + nq;
  if (m.settings.integrator == Integrator::kEuler) {
    const S* nodes = t.nodes > 0 ? state + nq + nv : nullptr;
    if (!accelerations(m, t, c, qpos, qvel, ctrl, m.settings.implicit_damping ? dt : 0.0, w, nodes)) return false;
    for (int d = 0; d < nv; ++d) next_qvel[d] = qvel[d] + dt * w.qacc[static_cast<std::size_t>(d)];
    if (nodes != nullptr) integrate_nodes(m, nodes, dt, next + nq + nv, w);
    switch (m.settings.contact.model) {
      case ContactModel::kPenalty:
        integrate_positions(m, qpos, next_qvel, dt, next);
        break;
      case ContactModel::kImpulse:
        advance_with_impacts(m, t, c, qpos, next_qvel, dt, next, w);
        break;
      case ContactModel::kNaiveImpulse:
        advance_then_impulse(m, t, c, qpos, next_qvel, dt, next, w);
        break;
    }
    return true;
  }
  // RK4 takes penalty contact only (the scenario loader refuses impulses with it).
  // Classic RK4 with MuJoCo's tableau: stage i starts from the state plus dt times a_i times the
  // previous stage's rates (a = 1/2, 1/2, 1); the step adds dt times (1, 2, 2, 1)/6 of them.
  static constexpr double kStageWeight[3] = {0.5, 0.5, 1.0};
  static constexpr double kFinalWeight[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
  const auto unv = static_cast<std::size_t>(nv);
  S* velocities = w.stage_velocities.data();
  S* accels = w.stage_accelerations.data();
  const S* stage_qpos = qpos;
  const S* stage_qvel = qvel;
  for (int i = 0; i < 4; ++i) {
    if (!accelerations(m, t, c, stage_qpos, stage_qvel, ctrl, 0.0, w)) return false;
    for (std::size_t d = 0; d < unv; ++d) {
      velocities[i * unv + d] = stage_qvel[d];
      accels[i * unv + d] = w.qacc[d];
    }
    if (i == 3) break;
    const double h = kStageWeight[i] * dt;
    integrate_positions(m, qpos, velocities + i * unv, h, w.stage_qpos.data());
    for (std::size_t d = 0; d < unv; ++d) w.stage_qvel[d] = qvel[d] + h * accels[i * unv + d];
    stage_qpos = w.stage_qpos.data();
    stage_qvel = w.stage_qvel.data();
  }
  // The weighted rates go into stage_qvel (velocities) and next_qvel (accelerations).
  for (std::size_t d = 0; d < unv; ++d) {
    S v = kFinalWeight[0] * velocities[d];
    S a = kFinalWeight[0] * accels[d];
    for (std::size_t i = 1; i < 4; ++i) {
      v = v + kFinalWeight[i] * velocities[i * unv + d];
      a = a + kFinalWeight[i] * accels[i * unv + d];
    }
    w.stage_qvel[d] = v;
    next_qvel[d] = qvel[d] + dt * a;
  }
  integrate_positions(m, qpos, w.stage_qvel.data(), dt, next);
  return true;
}

// next = one step (settings.substeps integrator steps) from state under controls ctrl; false when
// a mass matrix was singular.
template <class S>
bool rigid_step(const RigidModel& m, const RigidTree& t, const RigidConstants<S>& c, const S* state, const S* ctrl,
                S* next, RigidWorkspace<S>& w) {
  const int substeps = m.settings.substeps;
  const double dt = m.settings.timestep / substeps;
  if (substeps == 1) return integrator_step(m, t, c, state, ctrl, dt, next, w);
  const S* from = state;
  for (int k = 0; k < substeps; ++k) {
    S* to = k == substeps - 1 ? next : w.substep_next.data();
    if (!integrator_step(m, t, c, from, ctrl, dt, to, w)) return false;
    if (k < substeps - 1) {
      w.substep_state.swap(w.substep_next);
      from = w.substep_state.data();
    }
  }
  return true;
}

}  // namespace simgrad::rigid
