// MuJoCo's own C engine as the reference for the rigid-body tests: a compiled mjModel turned
// into a simgrad model field by field (so the dynamics are checked apart from the MJCF reader),
// and one mj_step from a given state.
#pragma once

#include <mujoco/mujoco.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "sims/rigid/model.hpp"

namespace simgrad::rigid::testing {

struct MujocoModel {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  MujocoModel() = default;
  MujocoModel(const MujocoModel&) = delete;
  MujocoModel& operator=(const MujocoModel&) = delete;
  ~MujocoModel() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

// Compiles an MJCF file with MuJoCo.
inline std::unique_ptr<MujocoModel> load_mujoco(const std::filesystem::path& file) {
  char error[1000] = "";
  auto r = std::make_unique<MujocoModel>();
  r->m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
  if (!r->m) throw std::runtime_error("MuJoCo cannot load " + file.string() + ": " + error);
  r->d = mj_makeData(r->m);
  return r;
}

// Compiles MJCF text with MuJoCo (through a scratch file of this process's own: ctest runs test
// cases as processes side by side, and one removing a shared file while another loads it failed
// a CI run).
inline std::unique_ptr<MujocoModel> load_mujoco_text(const std::string& xml, const std::string& name) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("simgrad_rigid_" + name + "_" + std::to_string(getpid()) + ".xml");
  std::ofstream(file) << xml;
  auto r = load_mujoco(file);
  std::filesystem::remove(file);
  return r;
}

// The simgrad model of a compiled MuJoCo model: the same bodies, joints, dofs and actuators.
inline RigidModel from_mujoco(const mjModel* m) {
  RigidModel r;
  r.settings.timestep = m->opt.timestep;
  for (int k = 0; k < 3; ++k) r.settings.gravity.c[k] = m->opt.gravity[k];
  r.settings.integrator = m->opt.integrator == mjINT_RK4 ? Integrator::kRK4 : Integrator::kEuler;
  r.settings.viscosity = m->opt.viscosity;
  r.settings.density = m->opt.density;
  r.nq = m->nq;
  r.nv = m->nv;
  std::vector<double> mass(static_cast<std::size_t>(m->nbody));
  for (int b = 0; b < m->nbody; ++b) {
    Body body;
    body.parent = b == 0 ? -1 : m->body_parentid[b];
    for (int k = 0; k < 3; ++k) body.pos.c[k] = m->body_pos[3 * b + k];
    for (int k = 0; k < 4; ++k) body.quat.c[k] = m->body_quat[4 * b + k];
    for (int k = 0; k < 3; ++k) body.centre.c[k] = m->body_ipos[3 * b + k];
    mass[static_cast<std::size_t>(b)] = m->body_mass[b];
    if (m->body_mass[b] > 0.0) {
      const Mat3<double> rot = rotation_matrix(Quat<double>{{m->body_iquat[4 * b], m->body_iquat[4 * b + 1], m->body_iquat[4 * b + 2], m->body_iquat[4 * b + 3]}});
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          double s = 0.0;
          for (int k = 0; k < 3; ++k) s += rot(i, k) * m->body_inertia[3 * b + k] * rot(j, k);
          body.unit_inertia(i, j) = s / m->body_mass[b];
        }
    }
    body.first_joint = m->body_jntnum[b] > 0 ? m->body_jntadr[b] : 0;
    body.joint_count = m->body_jntnum[b];
    r.bodies.push_back(body);
  }
  std::vector<double> stiffness;
  for (int j = 0; j < m->njnt; ++j) {
    Joint joint;
    joint.type = m->jnt_type[j] == mjJNT_FREE ? JointType::kFree
                 : m->jnt_type[j] == mjJNT_BALL ? JointType::kBall
                 : m->jnt_type[j] == mjJNT_SLIDE ? JointType::kSlide
                                                 : JointType::kHinge;
    joint.body = m->jnt_bodyid[j];
    for (int k = 0; k < 3; ++k) joint.pos.c[k] = m->jnt_pos[3 * j + k];
    for (int k = 0; k < 3; ++k) joint.axis.c[k] = m->jnt_axis[3 * j + k];
    joint.qpos_address = m->jnt_qposadr[j];
    joint.dof_address = m->jnt_dofadr[j];
    joint.limited = m->jnt_limited[j];
    joint.range[0] = m->jnt_range[2 * j];
    joint.range[1] = m->jnt_range[2 * j + 1];
    joint.spring_reference = m->qpos_spring[m->jnt_qposadr[j]];
    stiffness.push_back(m->jnt_stiffness[j]);
    r.joints.push_back(joint);
  }
  for (int d = 0; d < m->nv; ++d) r.dof_joint.push_back(m->dof_jntid[d]);
  r.qpos0.assign(m->qpos0, m->qpos0 + m->nq);
  std::vector<double> gear, gain;
  for (int a = 0; a < m->nu; ++a) {
    if (m->actuator_trntype[a] != mjTRN_JOINT) throw std::runtime_error("only joint actuators");
    Actuator act;
    act.joint = m->actuator_trnid[2 * a];
    const double* bias = m->actuator_biasprm + mjNBIAS * a;
    act.type = bias[1] != 0.0 ? ActuatorType::kPosition : bias[2] != 0.0 ? ActuatorType::kVelocity : ActuatorType::kMotor;
    act.ctrl_limited = m->actuator_ctrllimited[a];
    act.ctrl_range[0] = m->actuator_ctrlrange[2 * a];
    act.ctrl_range[1] = m->actuator_ctrlrange[2 * a + 1];
    act.force_limited = m->actuator_forcelimited[a];
    act.force_range[0] = m->actuator_forcerange[2 * a];
    act.force_range[1] = m->actuator_forcerange[2 * a + 1];
    gear.push_back(m->actuator_gear[6 * a]);
    gain.push_back(m->actuator_gainprm[mjNGAIN * a]);
    r.actuators.push_back(act);
  }
  std::vector<double> friction;
  for (int g = 0; g < m->ngeom; ++g) {
    Geom geom;
    geom.body = m->geom_bodyid[g];
    const int type = m->geom_type[g];
    geom.type = type == mjGEOM_PLANE ? GeomType::kPlane
                : type == mjGEOM_SPHERE ? GeomType::kSphere
                : type == mjGEOM_CAPSULE ? GeomType::kCapsule
                : type == mjGEOM_ELLIPSOID ? GeomType::kEllipsoid
                : type == mjGEOM_CYLINDER ? GeomType::kCylinder
                                          : GeomType::kBox;
    for (int k = 0; k < 3; ++k) geom.size[k] = m->geom_size[3 * g + k];
    for (int k = 0; k < 3; ++k) geom.pos.c[k] = m->geom_pos[3 * g + k];
    for (int k = 0; k < 4; ++k) geom.quat.c[k] = m->geom_quat[4 * g + k];
    friction.push_back(m->geom_friction[3 * g]);
    r.geoms.push_back(geom);
  }
  r.body_mass.assign(mass, false);
  r.dof_damping.assign(std::vector<double>(m->dof_damping, m->dof_damping + m->nv), false);
  r.dof_armature.assign(std::vector<double>(m->dof_armature, m->dof_armature + m->nv), false);
  r.joint_stiffness.assign(stiffness, false);
  r.actuator_gear.assign(gear, false);
  r.actuator_gain.assign(gain, false);
  r.geom_friction.assign(friction, false);
  r.set_default_contact();  // contact pairs stay empty unless a test adds them
  r.set_default_limits();
  r.set_fluid_boxes();
  r.resize(1, 0);
  return r;
}

// One MuJoCo step from (qpos, qvel) under ctrl; returns [qpos', qvel'].
inline std::vector<double> mujoco_step(MujocoModel& mj, const std::vector<double>& state, const std::vector<double>& ctrl) {
  const mjModel* m = mj.m;
  mjData* d = mj.d;
  mj_resetData(m, d);
  for (int i = 0; i < m->nq; ++i) d->qpos[i] = state[static_cast<std::size_t>(i)];
  for (int i = 0; i < m->nv; ++i) d->qvel[i] = state[static_cast<std::size_t>(m->nq + i)];
  for (int i = 0; i < m->nu; ++i) d->ctrl[i] = ctrl[static_cast<std::size_t>(i)];
  mj_step(m, d);
  std::vector<double> next(d->qpos, d->qpos + m->nq);
  next.insert(next.end(), d->qvel, d->qvel + m->nv);
  return next;
}

}  // namespace simgrad::rigid::testing
