// The rigid-body model: a kinematic tree of bodies joined by joints (reduced coordinates, as in
// MuJoCo), the geoms that give them shape and contact, the actuators that drive the joints, and
// the tunable constants. Everything but the tunables stays fixed during a run; the state
// (positions qpos, velocities qvel) lives in the rollout. Built by load_mjcf (mjcf.hpp) or by
// hand.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "sims/rigid/spatial.hpp"

namespace simgrad::rigid {

// Joint types with MuJoCo's coordinates: free (qpos: position, quaternion; qvel: world-frame
// linear velocity, body-frame angular velocity), ball (quaternion; body-frame angular velocity),
// slide and hinge (one coordinate each).
enum class JointType { kFree, kBall, kSlide, kHinge };

// Coordinates each joint type takes in qpos and in qvel.
inline int position_count(JointType type) {
  return type == JointType::kFree ? 7 : type == JointType::kBall ? 4 : 1;
}
inline int velocity_count(JointType type) {
  return type == JointType::kFree ? 6 : type == JointType::kBall ? 3 : 1;
}

enum class GeomType { kPlane, kSphere, kCapsule, kEllipsoid, kCylinder, kBox };

enum class Integrator { kEuler, kRK4 };

// How an actuator turns its control into a force along its joint (MuJoCo's motor, position and
// velocity shortcuts): motor f = ctrl, position f = kp (ctrl - gear q), velocity
// f = kv (ctrl - gear qdot); the joint then receives gear f.
enum class ActuatorType { kMotor, kPosition, kVelocity };

struct Body {
  std::string name;
  int parent = -1;  // -1 for the world body (body 0)
  // Pose relative to the parent body.
  Vec3<double> pos = Vec3<double>::zero();
  Quat<double> quat{{1.0, 0.0, 0.0, 0.0}};
  // Centre of mass and rotational inertia per unit mass about it, in the body frame: the mass
  // is tunable (body_mass), the shape of the mass distribution is not.
  Vec3<double> centre = Vec3<double>::zero();
  Mat3<double> unit_inertia = Mat3<double>::zero();
  // The equivalent inertia box that fluid forces act on (fluid_force.hpp): its principal axes
  // (columns, in the body frame) and full side lengths, from set_fluid_boxes.
  Mat3<double> principal_axes = Mat3<double>::identity();
  Vec3<double> fluid_box = Vec3<double>::zero();
  int first_joint = 0;
  int joint_count = 0;
};

struct Joint {
  std::string name;
  JointType type = JointType::kHinge;
  int body = 0;
  Vec3<double> pos = Vec3<double>::zero();   // anchor in the body frame
  Vec3<double> axis{{0.0, 0.0, 1.0}};        // unit, body frame (hinge, slide)
  int qpos_address = 0;
  int dof_address = 0;
  bool limited = false;
  double range[2] = {0.0, 0.0};  // rad or m
  double spring_reference = 0.0; // qpos at which the joint spring is relaxed (hinge, slide)
  // The limit's penalty spring and damper (joint_force.hpp), from set_default_limits.
  double limit_stiffness = 0.0;  // N m/rad or N/m
  double limit_damping = 0.0;    // N m s/rad or N s/m
};

struct Geom {
  std::string name;
  GeomType type = GeomType::kSphere;
  int body = 0;
  Vec3<double> pos = Vec3<double>::zero();  // body frame
  Quat<double> quat{{1.0, 0.0, 0.0, 0.0}};
  // MuJoCo's sizes: sphere radius; capsule and cylinder radius, half-length; box half-sizes;
  // ellipsoid radii; plane half-extents (drawing only: a plane is infinite).
  double size[3] = {0.0, 0.0, 0.0};
  int contype = 1;
  int conaffinity = 1;
};

struct Actuator {
  std::string name;
  ActuatorType type = ActuatorType::kMotor;
  int joint = 0;
  bool ctrl_limited = false;
  double ctrl_range[2] = {0.0, 0.0};
  bool force_limited = false;
  double force_range[2] = {0.0, 0.0};
};

// A named point on a body (MJCF's site): exerts nothing; losses and drawings refer to it.
struct Site {
  std::string name;
  int body = 0;
  Vec3<double> pos = Vec3<double>::zero();  // body frame
  Quat<double> quat{{1.0, 0.0, 0.0, 0.0}};
};

// A named state (MJCF's keyframe): qpos (nq), qvel (nv) and controls (nu), complete.
struct Keyframe {
  std::string name;
  double time = 0.0;
  std::vector<double> qpos;
  std::vector<double> qvel;
  std::vector<double> ctrl;
};

// Soft parts: point masses (nodes) joined by springs to each other and to points of the rigid
// bodies, touching the ground as small spheres (soft_force.hpp). A node starts at `point` of
// `body` (body frame) and moves freely after; its state follows the bodies' in a world's state.
struct SoftNode {
  int body = 0;
  Vec3<double> point = Vec3<double>::zero();
  double mass = 0.0;    // kg
  double radius = 0.0;  // m, for contact with the ground
  // The ground's push on this node (the law of contact_force.hpp): sized for the node, not for
  // the whole model as the bodies' contact constants are, since a node weighs grams and the
  // explicit step must resolve its contact.
  double contact_stiffness = 0.0;  // N/m
  double contact_damping = 0.0;    // N s/m
};

// A spring-damper between two nodes: tension k (l - L) + c dl/dt.
struct SoftSpring {
  int a = 0, b = 0;
  double length = 0.0;     // m, at rest
  double stiffness = 0.0;  // N/m
  double damping = 0.0;    // N s/m
};

// A zero-length spring-damper holding a node to a point of a body (body frame).
struct SoftAnchor {
  int node = 0;
  int body = 0;
  Vec3<double> point = Vec3<double>::zero();
  double stiffness = 0.0;  // N/m
  double damping = 0.0;    // N s/m
};

// A spring-damper between a point of body a and a point of body b (each in its body's frame): a
// player's spring, or the closing link of a loop that a tree of joints cannot hold. Its stiffness
// is the tunable spring_stiffness; length 0 pulls the points together along their offset.
struct BodySpring {
  int body_a = 0, body_b = 0;
  Vec3<double> point_a = Vec3<double>::zero(), point_b = Vec3<double>::zero();
  double length = 0.0;   // m, at rest
  double damping = 0.0;  // N s/m
};

// A pair of geoms that may touch, after contype/conaffinity, parent-child filtering and exclusions.
struct GeomPair {
  int a = 0;
  int b = 0;
};

// How geoms push each other apart: penalty forces during the step (contact_force.hpp), or
// impulses at each time of impact within the step (impulse_contact.hpp). The naive impulse
// variant applies them at the end of the step without moving to the time of impact; it exists
// to show that its gradient has the wrong sign on a bounce (tests), not to be used.
enum class ContactModel { kPenalty, kImpulse, kNaiveImpulse };

// The contact law's fixed settings (contact_force.hpp); its stiffness, damping and restitution
// are tunable. Joint limits (joint_force.hpp) switch on over the same width under either model.
struct ContactSettings {
  ContactModel model = ContactModel::kPenalty;
  double width = 0.002;       // m (rad for hinge limits), over which the force switches on; 0: the hard twin
  double slip_speed = 0.01;   // m/s, sliding speed below which friction fades smoothly
};

// What stays fixed while constants are tuned.
struct RigidSettings {
  double timestep = 0.002;
  Vec3<double> gravity{{0.0, 0.0, -9.81}};
  Integrator integrator = Integrator::kEuler;
  // Joint damping taken implicitly by the Euler integrator (MuJoCo's default): the step solves
  // (M + dt D) qacc = f, which keeps stiff damping stable.
  bool implicit_damping = true;
  // Fluid around the bodies (MuJoCo's option viscosity and density; 0: none).
  double viscosity = 0.0;
  double density = 0.0;
  ContactSettings contact;
  // Each step runs this many substeps of timestep / substeps with the same controls: penalty
  // contact needs shorter steps than a model's timestep (chosen for MuJoCo's implicit contact).
  int substeps = 1;
};

struct RigidModel {
  std::string name;
  RigidSettings settings;
  std::vector<Body> bodies;  // body 0 is the world; parents come before children
  std::vector<Joint> joints; // grouped by body, in body order
  std::vector<Geom> geoms;
  std::vector<Actuator> actuators;
  std::vector<GeomPair> contact_pairs;
  std::vector<Site> sites;
  std::vector<Keyframe> keyframes;
  std::vector<SoftNode> soft_nodes;
  std::vector<SoftSpring> soft_springs;
  std::vector<SoftAnchor> soft_anchors;
  std::vector<int> soft_ground;  // the plane geoms the nodes touch
  std::vector<BodySpring> body_springs;
  int nq = 0;  // position coordinates
  int nv = 0;  // velocity coordinates (degrees of freedom)
  std::vector<int> dof_joint;  // per dof, its joint
  std::vector<double> qpos0;   // the reference configuration (MuJoCo's qpos0)

  // Tunables (sims/rigid/tunables.hpp lists them with units).
  Array<1> body_mass;         // per body, kg (body 0 unused)
  Array<1> dof_damping;       // per dof, N m s/rad or N s/m
  Array<1> dof_armature;      // per dof, kg m^2 or kg, added to the mass matrix's diagonal
  Array<1> joint_stiffness;   // per joint, N m/rad or N/m (hinge, slide)
  Array<1> actuator_gear;     // per actuator
  Array<1> actuator_gain;     // per actuator: kp (position), kv (velocity); unused for motors
  Array<1> geom_friction;     // per geom, sliding friction coefficient
  Array<1> contact_stiffness; // one, N/m per contact point
  Array<1> contact_damping;   // one, N s/m per contact point
  Array<1> restitution;       // one, the impulse model's ratio of separating to approaching normal speed
  Array<1> spring_stiffness;  // per body spring, N/m

  // The batch: `worlds` independent copies over `steps` steps.
  int worlds = 1;
  int steps = 0;
  Array<1> initial_qpos;  // worlds x nq
  Array<1> initial_qvel;  // worlds x nv
  Array<1> controls;      // steps x worlds x actuators

  int nu() const { return static_cast<int>(actuators.size()); }
  // A world's state: [qpos (nq), qvel (nv), node positions (3 per node), node velocities].
  int state_size() const { return nq + nv + 6 * static_cast<int>(soft_nodes.size()); }
  // The tunable constants a step reads, in the order RigidConstants (workspace.hpp) keeps them.
  std::array<Array<1>*, 11> constant_arrays() {
    return {&body_mass, &dof_damping, &dof_armature, &joint_stiffness, &actuator_gear, &actuator_gain, &geom_friction,
            &contact_stiffness, &contact_damping, &restitution, &spring_stiffness};
  }
  // Every tunable array: the constants, then the initial state and the controls.
  std::array<Array<1>*, 14> tunable_arrays() {
    return {&body_mass, &dof_damping, &dof_armature, &joint_stiffness, &actuator_gear, &actuator_gain, &geom_friction,
            &contact_stiffness, &contact_damping, &restitution, &spring_stiffness, &initial_qpos, &initial_qvel, &controls};
  }
  // The copy with the hard contact law, for re-scoring a result tuned on the relaxed one. Impulse
  // contact has nothing to relax (it is exact within a contact pattern), so it is its own hard
  // twin; only joint limits change.
  RigidModel hard_twin() const {
    RigidModel twin = *this;
    twin.settings.contact.width = 0.0;
    return twin;
  }
  // Sizes the batch: `world_count` worlds over `step_count` steps, every world starting at
  // qpos0 at rest, controls zero.
  void resize(int world_count, int step_count);
  // Makes the tunable arrays differentiable (or not), keeping their values.
  void set_differentiable(bool on);
  // Sets the contact stiffness and damping from the model's total mass M: k = M w^2 and
  // b = 2 M w with w = 60 rad/s, so the whole model resting on one contact point sinks
  // g / w^2 = 2.7 mm into it and rebounds critically damped; restitution 1 (elastic impulses).
  void set_default_contact();
  // Sets each limited hinge or slide's limit spring and damper from the inertia I its dof has at
  // qpos0 (the mass matrix's diagonal): k = I w^2 and b = 2 I w with w = 60 rad/s.
  void set_default_limits();
  // Sets each body's inertia box: the box of uniform density with the body's principal moments,
  // sides sqrt(6 (I_j + I_k - I_i) / m) (MuJoCo's inertia-box fluid model).
  void set_fluid_boxes();
};

}  // namespace simgrad::rigid
