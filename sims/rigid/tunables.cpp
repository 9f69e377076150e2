#include "sims/rigid/tunables.hpp"

namespace simgrad::rigid {

namespace {

// A row whose values live in one of the model's arrays.
tune::Tunable<RigidModel> row(tune::TunableInfo info, Array<1> RigidModel::*array) {
  return {std::move(info), [array](RigidModel& m) { return tune::array_storage(m.*array); }};
}

const tune::TunableDefault kFromModel = tune::TunableDefault::text("the MJCF model's");

}  // namespace

const tune::TunableTable<RigidModel>& rigid_tunables() {
  static const tune::TunableTable<RigidModel> table = {
      row({"body_mass", "kg", "body", "mass of a body; its inertia scales with it (the shape of its mass stays)", kFromModel},
          &RigidModel::body_mass),
      row({"joint_damping", "N m s/rad or N s/m", "dof", "viscous damping of a degree of freedom", kFromModel},
          &RigidModel::dof_damping),
      row({"joint_armature", "kg m^2 or kg", "dof", "rotor inertia added to a degree of freedom", kFromModel},
          &RigidModel::dof_armature),
      row({"joint_stiffness", "N m/rad or N/m", "joint", "spring of a hinge or slide towards its spring reference", kFromModel},
          &RigidModel::joint_stiffness),
      row({"actuator_gear", "1", "actuator", "transmission ratio from actuator force to joint force", kFromModel},
          &RigidModel::actuator_gear),
      row({"actuator_gain", "N/m, N m/rad, ...", "actuator", "a position servo's kp or a velocity servo's kv", kFromModel},
          &RigidModel::actuator_gain),
      row({"friction", "1", "geom", "sliding friction coefficient (a contact takes the larger of its two geoms')", kFromModel},
          &RigidModel::geom_friction),
      row({"contact_stiffness", "N/m", "model", "penalty contact spring per contact point",
           tune::TunableDefault::text("total mass x (60 rad/s)^2")},
          &RigidModel::contact_stiffness),
      row({"contact_damping", "N s/m", "model", "penalty contact damper per contact point",
           tune::TunableDefault::text("total mass x 2 x 60 rad/s")},
          &RigidModel::contact_damping),
      row({"restitution", "1", "model",
           "impulse contact's ratio of separating to approaching normal speed (1: elastic, 0: plastic)",
           tune::TunableDefault::text("the scenario's model.contact.restitution, else 1")},
          &RigidModel::restitution),
      row({"spring_stiffness", "N/m", "spring", "a spring between two bodies (an assembly's spring connection)",
           tune::TunableDefault::text("the assembly's spring stiffness")},
          &RigidModel::spring_stiffness),
      row({"initial_qpos", "m, rad or 1", "world and position coordinate", "starting joint positions (qpos)",
           tune::TunableDefault::text("the scenario's start, else the model's qpos0")},
          &RigidModel::initial_qpos),
      row({"initial_qvel", "m/s or rad/s", "world and velocity coordinate", "starting joint velocities (qvel)",
           tune::TunableDefault::number(0.0)},
          &RigidModel::initial_qvel),
      row({"controls", "actuator units", "step, world and actuator", "open-loop actuator controls, one per step",
           tune::TunableDefault::number(0.0)},
          &RigidModel::controls),
  };
  return table;
}

}  // namespace simgrad::rigid
