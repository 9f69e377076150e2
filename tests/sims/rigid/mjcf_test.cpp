// The MJCF reader against MuJoCo's own compiler (Debian's libmujoco 2.2.2): each model is loaded
// by both, and everything simgrad reads is compared to 1e-12 relative: sizes, the tree, frames,
// masses and full inertia tensors, joints, actuators, options, keyframes, sites and the pairs of
// geoms that may touch. Then bad input: each error names file and line.
#include "sims/rigid/mjcf.hpp"

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <utility>

namespace simgrad::rigid {
namespace {

constexpr double kTolerance = 1e-12;

struct MujocoDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
using MujocoModel = std::unique_ptr<mjModel, MujocoDeleter>;

// MuJoCo's own compile of the file.
MujocoModel mujoco_load(const std::string& path) {
  char error[1000] = "";
  MujocoModel m(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
  if (!m) ADD_FAILURE() << "MuJoCo cannot load " << path << ": " << error;
  return m;
}

// |a - b| within kTolerance of the larger of |a|, |b| and `scale` (the size of the quantity a
// component belongs to, so that a near-zero component is not held to a tighter bound).
void expect_close(double a, double b, double scale, const std::string& what) {
  const double bound = kTolerance * std::max({std::abs(a), std::abs(b), scale});
  EXPECT_LE(std::abs(a - b), bound) << what << ": simgrad " << a << ", MuJoCo " << b;
}

void expect_close(const double* a, const double* b, int n, const std::string& what) {
  double scale = 0.0;
  for (int i = 0; i < n; ++i) scale = std::max({scale, std::abs(a[i]), std::abs(b[i])});
  for (int i = 0; i < n; ++i) expect_close(a[i], b[i], scale, what + "[" + std::to_string(i) + "]");
}

// Quaternions q and -q are the same rotation.
void expect_same_rotation(const Quat<double>& q, const double* mujoco, const std::string& what) {
  const double sign = dot(q, Quat<double>{{mujoco[0], mujoco[1], mujoco[2], mujoco[3]}}) < 0.0 ? -1.0 : 1.0;
  const Quat<double> flipped = sign * q;
  expect_close(flipped.c, mujoco, 4, what);
}

void compare_options(const RigidModel& s, const mjModel* m) {
  expect_close(s.settings.timestep, m->opt.timestep, 0.0, "timestep");
  expect_close(s.settings.gravity.c, m->opt.gravity, 3, "gravity");
  EXPECT_EQ(s.settings.integrator == Integrator::kRK4, m->opt.integrator == mjINT_RK4);
  expect_close(s.settings.viscosity, m->opt.viscosity, 0.0, "viscosity");
  expect_close(s.settings.density, m->opt.density, 0.0, "density");
}

// MuJoCo's inertia about the centre in the body frame: R(iquat) diag(inertia) R(iquat)^T.
Mat3<double> mujoco_inertia(const mjModel* m, int b) {
  double rotation[9];
  mju_quat2Mat(rotation, m->body_iquat + 4 * b);
  Mat3<double> out = Mat3<double>::zero();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) out(i, j) += rotation[3 * i + k] * m->body_inertia[3 * b + k] * rotation[3 * j + k];
  return out;
}

void compare_bodies(const RigidModel& s, const mjModel* m) {
  ASSERT_EQ(static_cast<int>(s.bodies.size()), m->nbody);
  EXPECT_EQ(s.bodies[0].parent, -1);
  for (int b = 1; b < m->nbody; ++b) {
    const Body& body = s.bodies[static_cast<std::size_t>(b)];
    const std::string what = "body " + std::to_string(b) + " (" + body.name + ")";
    EXPECT_EQ(body.name, mj_id2name(m, mjOBJ_BODY, b) ? mj_id2name(m, mjOBJ_BODY, b) : "") << what;
    EXPECT_EQ(body.parent, m->body_parentid[b]) << what;
    expect_close(body.pos.c, m->body_pos + 3 * b, 3, what + " pos");
    expect_same_rotation(body.quat, m->body_quat + 4 * b, what + " quat");
    const double mass = s.body_mass.values()[b];
    expect_close(mass, m->body_mass[b], 0.0, what + " mass");
    if (m->body_mass[b] == 0.0) continue;  // a massless body's centre means nothing
    expect_close(body.centre.c, m->body_ipos + 3 * b, 3, what + " centre");
    Mat3<double> inertia = body.unit_inertia;
    for (double& x : inertia.m) x *= mass;
    expect_close(inertia.m, mujoco_inertia(m, b).m, 9, what + " inertia");
  }
}

// MuJoCo's joint types in its enum's order (mjtJoint).
JointType mujoco_joint_type(int type) {
  return type == mjJNT_FREE ? JointType::kFree : type == mjJNT_BALL ? JointType::kBall : type == mjJNT_SLIDE ? JointType::kSlide : JointType::kHinge;
}

void compare_joints(const RigidModel& s, const mjModel* m) {
  ASSERT_EQ(s.nq, m->nq);
  ASSERT_EQ(s.nv, m->nv);
  ASSERT_EQ(static_cast<int>(s.joints.size()), m->njnt);
  expect_close(s.qpos0.data(), m->qpos0, m->nq, "qpos0");
  for (int j = 0; j < m->njnt; ++j) {
    const Joint& joint = s.joints[static_cast<std::size_t>(j)];
    const std::string what = "joint " + std::to_string(j) + " (" + joint.name + ")";
    EXPECT_EQ(joint.type, mujoco_joint_type(m->jnt_type[j])) << what;
    EXPECT_EQ(joint.body, m->jnt_bodyid[j]) << what;
    EXPECT_EQ(joint.qpos_address, m->jnt_qposadr[j]) << what;
    EXPECT_EQ(joint.dof_address, m->jnt_dofadr[j]) << what;
    expect_close(joint.pos.c, m->jnt_pos + 3 * j, 3, what + " anchor");
    if (joint.type == JointType::kHinge || joint.type == JointType::kSlide) {
      expect_close(joint.axis.c, m->jnt_axis + 3 * j, 3, what + " axis");
      expect_close(joint.spring_reference, m->qpos_spring[m->jnt_qposadr[j]], 0.0, what + " springref");
    }
    EXPECT_EQ(joint.limited, m->jnt_limited[j] != 0) << what;
    if (joint.limited) expect_close(joint.range, m->jnt_range + 2 * j, 2, what + " range");
    expect_close(s.joint_stiffness.values()[j], m->jnt_stiffness[j], 0.0, what + " stiffness");
  }
  for (int d = 0; d < m->nv; ++d) {
    EXPECT_EQ(s.dof_joint[static_cast<std::size_t>(d)], m->dof_jntid[d]) << "dof " << d;
    expect_close(s.dof_damping.values()[d], m->dof_damping[d], 0.0, "dof damping " + std::to_string(d));
    expect_close(s.dof_armature.values()[d], m->dof_armature[d], 0.0, "dof armature " + std::to_string(d));
  }
  for (int b = 0; b < m->nbody; ++b) {
    EXPECT_EQ(s.bodies[static_cast<std::size_t>(b)].joint_count, m->body_jntnum[b]) << "body " << b;
    if (m->body_jntnum[b] > 0) {
      EXPECT_EQ(s.bodies[static_cast<std::size_t>(b)].first_joint, m->body_jntadr[b]) << "body " << b;
    }
  }
}

// The actuator type behind MuJoCo's general actuator: motors have no bias, position servos
// -kp q, velocity servos -kv qdot.
ActuatorType mujoco_actuator_type(const mjModel* m, int a) {
  if (m->actuator_biastype[a] == mjBIAS_NONE) return ActuatorType::kMotor;
  return m->actuator_biasprm[mjNBIAS * a + 1] != 0.0 ? ActuatorType::kPosition : ActuatorType::kVelocity;
}

void compare_actuators(const RigidModel& s, const mjModel* m) {
  ASSERT_EQ(s.nu(), m->nu);
  for (int a = 0; a < m->nu; ++a) {
    const Actuator& act = s.actuators[static_cast<std::size_t>(a)];
    const std::string what = "actuator " + std::to_string(a) + " (" + act.name + ")";
    EXPECT_EQ(m->actuator_trntype[a], mjTRN_JOINT) << what;
    EXPECT_EQ(act.joint, m->actuator_trnid[2 * a]) << what;
    EXPECT_EQ(act.type, mujoco_actuator_type(m, a)) << what;
    expect_close(s.actuator_gear.values()[a], m->actuator_gear[6 * a], 0.0, what + " gear");
    expect_close(s.actuator_gain.values()[a], m->actuator_gainprm[mjNGAIN * a], 0.0, what + " gain");
    if (act.type != ActuatorType::kMotor) {
      const double bias = m->actuator_biasprm[mjNBIAS * a + (act.type == ActuatorType::kPosition ? 1 : 2)];
      expect_close(-s.actuator_gain.values()[a], bias, 0.0, what + " bias");
    }
    EXPECT_EQ(act.ctrl_limited, m->actuator_ctrllimited[a] != 0) << what;
    if (act.ctrl_limited) expect_close(act.ctrl_range, m->actuator_ctrlrange + 2 * a, 2, what + " ctrlrange");
    EXPECT_EQ(act.force_limited, m->actuator_forcelimited[a] != 0) << what;
    if (act.force_limited) expect_close(act.force_range, m->actuator_forcerange + 2 * a, 2, what + " forcerange");
  }
}

// MuJoCo's geom types in its enum's order (mjtGeom), for the primitives simgrad reads.
GeomType mujoco_geom_type(int type) {
  switch (type) {
    case mjGEOM_PLANE: return GeomType::kPlane;
    case mjGEOM_CAPSULE: return GeomType::kCapsule;
    case mjGEOM_ELLIPSOID: return GeomType::kEllipsoid;
    case mjGEOM_CYLINDER: return GeomType::kCylinder;
    case mjGEOM_BOX: return GeomType::kBox;
    default: return GeomType::kSphere;
  }
}

void compare_geoms_and_sites(const RigidModel& s, const mjModel* m) {
  ASSERT_EQ(static_cast<int>(s.geoms.size()), m->ngeom);
  for (int g = 0; g < m->ngeom; ++g) {
    const Geom& geom = s.geoms[static_cast<std::size_t>(g)];
    const std::string what = "geom " + std::to_string(g) + " (" + geom.name + ")";
    EXPECT_EQ(geom.type, mujoco_geom_type(m->geom_type[g])) << what;
    EXPECT_EQ(geom.body, m->geom_bodyid[g]) << what;
    if (geom.type != GeomType::kPlane) expect_close(geom.size, m->geom_size + 3 * g, 3, what + " size");
    expect_close(geom.pos.c, m->geom_pos + 3 * g, 3, what + " pos");
    expect_same_rotation(geom.quat, m->geom_quat + 4 * g, what + " quat");
    EXPECT_EQ(geom.contype, m->geom_contype[g]) << what;
    EXPECT_EQ(geom.conaffinity, m->geom_conaffinity[g]) << what;
    expect_close(s.geom_friction.values()[g], m->geom_friction[3 * g], 0.0, what + " friction");
  }
  ASSERT_EQ(static_cast<int>(s.sites.size()), m->nsite);
  for (int i = 0; i < m->nsite; ++i) {
    const Site& site = s.sites[static_cast<std::size_t>(i)];
    EXPECT_EQ(site.body, m->site_bodyid[i]) << "site " << i;
    expect_close(site.pos.c, m->site_pos + 3 * i, 3, "site pos");
    expect_same_rotation(site.quat, m->site_quat + 4 * i, "site quat");
  }
}

// The geom pairs MuJoCo 2.2.2's collision pass tests (mj_collision with its broad phase), worked
// out here from MuJoCo's own arrays: not within one welded body, not a welded parent and child
// (unless the parent is the world), contype/conaffinity bits, excluded body pairs.
std::set<std::pair<int, int>> mujoco_contact_pairs(const mjModel* m) {
  std::set<std::pair<int, int>> excluded;
  for (int i = 0; i < m->nexclude; ++i) {
    const int b1 = (m->exclude_signature[i] >> 16) - 1, b2 = (m->exclude_signature[i] & 0xFFFF) - 1;
    excluded.insert({std::min(b1, b2), std::max(b1, b2)});
  }
  std::set<std::pair<int, int>> pairs;
  for (int a = 0; a < m->ngeom; ++a)
    for (int b = a + 1; b < m->ngeom; ++b) {
      const int ba = m->geom_bodyid[a], bb = m->geom_bodyid[b];
      const int wa = m->body_weldid[ba], wb = m->body_weldid[bb];
      const int pa = m->body_weldid[m->body_parentid[wa]], pb = m->body_weldid[m->body_parentid[wb]];
      if (wa == wb || (wa != 0 && wb != 0 && (wa == pb || wb == pa))) continue;
      if (!(m->geom_contype[a] & m->geom_conaffinity[b]) && !(m->geom_contype[b] & m->geom_conaffinity[a])) continue;
      if (excluded.contains({std::min(ba, bb), std::max(ba, bb)})) continue;
      pairs.insert({a, b});
    }
  return pairs;
}

// The geom pairs MuJoCo's collision pass actually reports at qpos0 when every geom has a margin
// of 100 m, so that every pair it tests at all is in contact: the rules above, checked against
// MuJoCo's own code (broad phase, filters, narrow phase).
std::set<std::pair<int, int>> mujoco_touching_pairs(const mjModel* model) {
  const MujocoModel m(mj_copyModel(nullptr, model));
  for (int g = 0; g < m->ngeom; ++g) m->geom_margin[g] = 100.0;
  mjData* d = mj_makeData(m.get());
  mj_forward(m.get(), d);
  EXPECT_EQ(d->warning[mjWARN_CONTACTFULL].number, 0);
  std::set<std::pair<int, int>> pairs;
  for (int i = 0; i < d->ncon; ++i)
    pairs.insert({std::min(d->contact[i].geom1, d->contact[i].geom2), std::max(d->contact[i].geom1, d->contact[i].geom2)});
  mj_deleteData(d);
  return pairs;
}

void compare_contact_pairs(const RigidModel& s, const mjModel* m) {
  std::set<std::pair<int, int>> ours;
  for (const GeomPair& p : s.contact_pairs) {
    EXPECT_LT(p.a, p.b);
    EXPECT_TRUE(ours.insert({p.a, p.b}).second) << "pair listed twice: " << p.a << ", " << p.b;
  }
  EXPECT_EQ(ours, mujoco_contact_pairs(m));
  EXPECT_EQ(ours, mujoco_touching_pairs(m));
}

void compare_keyframes(const RigidModel& s, const mjModel* m) {
  ASSERT_EQ(static_cast<int>(s.keyframes.size()), m->nkey);
  for (int k = 0; k < m->nkey; ++k) {
    const Keyframe& key = s.keyframes[static_cast<std::size_t>(k)];
    expect_close(key.time, m->key_time[k], 0.0, "key time");
    expect_close(key.qpos.data(), m->key_qpos + m->nq * k, m->nq, "key qpos");
    expect_close(key.qvel.data(), m->key_qvel + m->nv * k, m->nv, "key qvel");
    if (m->nu > 0) expect_close(key.ctrl.data(), m->key_ctrl + m->nu * k, m->nu, "key ctrl");
  }
}

void compare_with_mujoco(const std::string& path) {
  SCOPED_TRACE(path);
  const MujocoModel m = mujoco_load(path);
  ASSERT_TRUE(m);
  // The test models have pairs of shapes simgrad cannot collide yet (box on box): their compiled
  // fields are compared all the same.
  const RigidModel s = load_mjcf(path, {.ignore_visual = true, .require_collisions = false});
  compare_options(s, m.get());
  compare_bodies(s, m.get());
  compare_joints(s, m.get());
  compare_actuators(s, m.get());
  compare_geoms_and_sites(s, m.get());
  compare_contact_pairs(s, m.get());
  compare_keyframes(s, m.get());
  EXPECT_FALSE(s.body_mass.differentiable());
  EXPECT_EQ(s.initial_qpos.values().size(), s.qpos0.size());
}

class MjcfModels : public testing::TestWithParam<std::string> {};

TEST_P(MjcfModels, MatchesMujoco) { compare_with_mujoco(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Mjcf, MjcfModels,
    testing::Values(SIMGRAD_MJCF_DIR "/ant.xml", SIMGRAD_MJCF_DIR "/half_cheetah.xml", SIMGRAD_MJCF_DIR "/hopper.xml",
                    SIMGRAD_MJCF_DIR "/humanoid.xml", SIMGRAD_MJCF_DIR "/walker2d.xml", SIMGRAD_MJCF_DIR "/swimmer.xml",
                    SIMGRAD_MJCF_DIR "/reacher.xml", SIMGRAD_MJCF_DIR "/inverted_pendulum.xml",
                    SIMGRAD_MJCF_DIR "/inverted_double_pendulum.xml", SIMGRAD_TEST_DATA_DIR "/rigid/free_box.xml",
                    SIMGRAD_TEST_DATA_DIR "/rigid/chain10.xml", SIMGRAD_TEST_DATA_DIR "/rigid/ball_pendulum.xml",
                    SIMGRAD_TEST_DATA_DIR "/rigid/defaults_frames.xml"),
    [](const testing::TestParamInfo<std::string>& info) {
      return std::filesystem::path(info.param).stem().string();
    });

// The pair comparison can fail: MuJoCo's filter is not simply "every pair".
TEST(MjcfContactPairs, FilterRulesMatter) {
  const RigidModel s = load_mjcf(SIMGRAD_TEST_DATA_DIR "/rigid/defaults_frames.xml", {.require_collisions = false});
  const std::size_t n = s.geoms.size();
  EXPECT_LT(s.contact_pairs.size(), n * (n - 1) / 2);
  EXPECT_GT(s.contact_pairs.size(), 0u);
}

// The message of the MjcfError that reading `xml` throws ("" if none).
std::string error_of(const std::string& xml, const MjcfOptions& options = {}) {
  try {
    parse_mjcf(xml, "model.xml", options);
  } catch (const MjcfError& e) {
    return e.what();
  }
  return "";
}

// The error names the file, the line and what is wrong.
void expect_error(const std::string& xml, int line, const std::string& part, const MjcfOptions& options = {}) {
  const std::string message = error_of(xml, options);
  EXPECT_EQ(message.rfind("model.xml:" + std::to_string(line) + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(part), std::string::npos) << message;
}

TEST(MjcfBadInput, MalformedXml) {
  expect_error("<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>\n", 4, "malformed XML");
}

TEST(MjcfBadInput, UnknownAttribute) {
  expect_error("<mujoco>\n<worldbody>\n<body>\n<geom size=\"0.1\" colour=\"red\"/>\n</body>\n</worldbody>\n</mujoco>", 4,
               "<geom> attribute 'colour'");
}

TEST(MjcfBadInput, UnsupportedElementAndAttribute) {
  expect_error("<mujoco>\n<sensor/>\n</mujoco>", 2, "<sensor>");
  expect_error("<mujoco>\n<worldbody>\n<body>\n<joint springdamper=\"1 1\"/>\n<geom size=\"1\"/>\n</body>\n</worldbody>\n</mujoco>",
               4, "<joint> attribute 'springdamper'");
}

TEST(MjcfBadInput, VisualOnlyUnlessIgnored) {
  const std::string light = "<mujoco>\n<worldbody>\n<light pos=\"0 0 3\"/>\n</worldbody>\n</mujoco>";
  expect_error(light, 3, "ignore_visual");
  EXPECT_EQ(error_of(light, {.ignore_visual = true}), "");
  const std::string rgba = "<mujoco>\n<worldbody>\n<geom size=\"1\"\n rgba=\"1 0 0 1\"/>\n</worldbody>\n</mujoco>";
  expect_error(rgba, 3, "<geom> attribute 'rgba'");
  expect_error(rgba, 3, "ignore_visual");
  EXPECT_EQ(error_of(rgba, {.ignore_visual = true}), "");
}

// The nine standard models all carry lights, textures or colours: without ignore_visual each is
// refused with a message that says how to skip them.
TEST(MjcfBadInput, StandardModelsNeedIgnoreVisual) {
  for (const char* name : {"ant", "half_cheetah", "hopper", "humanoid", "walker2d", "swimmer", "reacher", "inverted_pendulum",
                           "inverted_double_pendulum"}) {
    const std::string path = std::string(SIMGRAD_MJCF_DIR) + "/" + name + ".xml";
    try {
      load_mjcf(path);
      ADD_FAILURE() << path << " loaded without ignore_visual";
    } catch (const MjcfError& e) {
      EXPECT_TRUE(std::regex_search(e.what(), std::regex(":[0-9]+: <[a-z]+>.*ignore_visual"))) << e.what();
    }
  }
}

// MuJoCo 2.2.2's default autolimits="false" refuses a range without `limited`; simgrad follows
// later MuJoCo (autolimits true by default) unless the file says false.
TEST(MjcfReading, Autolimits) {
  const std::string joint = "<worldbody>\n<body>\n<joint range=\"-1 1\"/>\n<geom size=\"1\"/>\n</body>\n</worldbody>\n</mujoco>";
  const RigidModel s = parse_mjcf("<mujoco>\n" + joint, "inline.xml", {});
  EXPECT_TRUE(s.joints[0].limited);
  expect_error("<mujoco>\n<compiler autolimits=\"false\"/>\n" + joint, 5, "<joint> attribute 'range'");
}

TEST(MjcfBadInput, KeyframeOfWrongLength) {
  expect_error("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<geom size=\"1\"/>\n</body>\n</worldbody>\n<keyframe>\n"
               "<key qpos=\"0 1\"/>\n</keyframe>\n</mujoco>",
               9, "<key> attribute 'qpos'");
}

TEST(MjcfBadInput, JointInWorldbody) {
  expect_error("<mujoco>\n<worldbody>\n<joint type=\"hinge\"/>\n</worldbody>\n</mujoco>", 3, "<joint>");
}

TEST(MjcfBadInput, ZeroMassBodyWithJoint) {
  expect_error("<mujoco>\n<worldbody>\n<body name=\"ghost\">\n<joint/>\n</body>\n</worldbody>\n</mujoco>", 3, "'ghost'");
  expect_error("<mujoco>\n<worldbody>\n<body name=\"flat\">\n<joint/>\n<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"0 0 0\"/>\n</body>\n</worldbody>\n</mujoco>",
               3, "singular inertia");
}

TEST(MjcfBadInput, MissingFile) {
  try {
    load_mjcf("/nonexistent/model.xml");
    FAIL() << "no error";
  } catch (const MjcfError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex("^/nonexistent/model\\.xml:[0-9]+: "))) << e.what();
  }
}

TEST(MjcfBadInput, NotModelledYet) {
  const std::string body = "<mujoco>\n<worldbody>\n<body>\n";
  expect_error(body + "<joint frictionloss=\"0.1\"/>\n<geom size=\"1\"/>\n</body>\n</worldbody>\n</mujoco>", 4, "not modelled yet");
  expect_error(body + "<geom type=\"mesh\" mesh=\"m\"/>\n</body>\n</worldbody>\n</mujoco>", 4, "mesh geoms are not supported yet");
  expect_error("<mujoco>\n<compiler\n coordinate=\"global\"/>\n</mujoco>", 2, "coordinate");
  expect_error("<mujoco>\n<option integrator=\"implicit\"/>\n</mujoco>", 2, "integrator");
}

TEST(MjcfBadInput, ErrorsInDefaultsNameTheDefault) {
  expect_error("<mujoco>\n<default>\n<geom size=\"1 x\"/>\n</default>\n<worldbody>\n<geom/>\n</worldbody>\n</mujoco>", 3,
               "<geom> attribute 'size'");
  expect_error("<mujoco>\n<worldbody>\n<geom class=\"nope\" size=\"1\"/>\n</worldbody>\n</mujoco>", 3, "no default class");
}

TEST(MjcfReading, DefaultsOverlayPartialLists) {
  // size="0.2" keeps the default's half-length, as MuJoCo reads it.
  const RigidModel s = parse_mjcf(
      "<mujoco><default><geom type=\"capsule\" size=\"0.1 0.5\"/></default>"
      "<worldbody><geom size=\"0.2\"/></worldbody></mujoco>",
      "inline.xml", {});
  ASSERT_EQ(s.geoms.size(), 1u);
  EXPECT_EQ(s.geoms[0].size[0], 0.2);
  EXPECT_EQ(s.geoms[0].size[1], 0.5);
}

}  // namespace
}  // namespace simgrad::rigid

namespace simgrad::rigid {
namespace {

// Two boxes that may touch: simgrad has no box-box collision, so the model is refused, naming
// both geoms, rather than letting them pass through each other.
TEST(MjcfErrors, APairWithoutACollisionRoutineIsRefused) {
  const char* xml = R"(<mujoco>
  <worldbody>
    <geom type="cylinder" size="1 0.1"/>
    <body pos="0 0 1"><freejoint/>
      <geom type="cylinder" size="0.1 0.1"/>
    </body>
  </worldbody>
</mujoco>)";
  try {
    parse_mjcf(xml, "cylinders.xml");
    FAIL() << "no error";
  } catch (const MjcfError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cylinders.xml:5"), std::string::npos) << what;
    EXPECT_NE(what.find("line 3"), std::string::npos) << what;
    EXPECT_NE(what.find("exclude"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace simgrad::rigid
