// Contact: the collision geometry of each supported pair against closed forms (boxes against
// boxes, rods and wheels at a step's edge among them), the gradient of rollouts through each pair
// against central differences, and the physics of friction (a box sliding to rest at
// v^2 / (2 mu g), on a plane and on a slab) and of resting bodies (the rest penetration M g / k
// shared over the contact points).
#include "sims/rigid/contact_force.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "core/rollout.hpp"
#include "sims/rigid/energy.hpp"
#include "sims/rigid/kinematics.hpp"
#include "sims/rigid/losses.hpp"
#include "sims/rigid/mjcf.hpp"
#include "sims/rigid/rigid_worlds.hpp"
#include "tests/sims/rigid/mujoco_reference.hpp"
#include "tests/sims/rigid/rollout_gradient.hpp"
#include "tests/sims/rigid/test_models.hpp"

namespace simgrad::rigid {
namespace {

struct Touch {
  Vec3<double> point, normal;
  double distance;
};

// Every contact point of the pair, geom a at (pa, qa) and geom b at (pb, qb).
std::vector<Touch> touches(GeomType ta, std::array<double, 3> sa, Vec3<double> pa, Quat<double> qa, GeomType tb,
                           std::array<double, 3> sb, Vec3<double> pb, Quat<double> qb) {
  Geom a, b;
  a.type = ta;
  b.type = tb;
  for (int k = 0; k < 3; ++k) a.size[k] = sa[static_cast<std::size_t>(k)], b.size[k] = sb[static_cast<std::size_t>(k)];
  std::vector<Touch> out;
  collide(a, GeomFrame<double>{pa, rotation_matrix(qa)}, b, GeomFrame<double>{pb, rotation_matrix(qb)},
          [&out](const Vec3<double>& p, const Vec3<double>& n, double d) { out.push_back({p, n, d}); });
  return out;
}

const Quat<double> kIdentity{{1.0, 0.0, 0.0, 0.0}};
Quat<double> turn(double angle, Vec3<double> axis) { return axis_angle(axis / norm(axis), angle); }

TEST(RigidCollision, SphereOverATiltedPlane) {
  const Quat<double> tilt = turn(0.3, {{1.0, 0.0, 0.0}});
  const auto t = touches(GeomType::kPlane, {1, 1, 1}, {{0, 0, 0}}, tilt, GeomType::kSphere, {0.5, 0, 0}, {{0, 0, 2}}, kIdentity);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0].distance, 2.0 * std::cos(0.3) - 0.5, 1e-15);
  EXPECT_NEAR(t[0].normal.c[1], -std::sin(0.3), 1e-15);
}

TEST(RigidCollision, CapsuleLyingAcrossACapsule) {
  // Crossed at right angles, 1 apart: closest points on both axes at their middles.
  const auto t = touches(GeomType::kCapsule, {0.2, 1, 0}, {{0, 0, 0}}, turn(M_PI / 2, {{0, 1, 0}}), GeomType::kCapsule,
                         {0.3, 1, 0}, {{0.1, 0, 1}}, turn(M_PI / 2, {{1, 0, 0}}));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0].distance, 1.0 - 0.5, 1e-15);
  EXPECT_NEAR(t[0].normal.c[2], 1.0, 1e-15);
  EXPECT_NEAR(t[0].point.c[2], 0.2 + 0.25, 1e-15);  // midway between the surfaces
}

TEST(RigidCollision, SphereAtABoxCornerAndInsideABox) {
  const auto corner = touches(GeomType::kSphere, {0.1, 0, 0}, {{1.5, 1.5, 1.5}}, kIdentity, GeomType::kBox, {1, 1, 1},
                              {{0, 0, 0}}, kIdentity);
  ASSERT_EQ(corner.size(), 1u);
  EXPECT_NEAR(corner[0].distance, std::sqrt(3.0) * 0.5 - 0.1, 1e-15);
  const auto inside = touches(GeomType::kSphere, {0.1, 0, 0}, {{0.2, 0.9, 0}}, kIdentity, GeomType::kBox, {1, 1, 1},
                              {{0, 0, 0}}, kIdentity);
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_NEAR(inside[0].distance, -0.1 - 0.1, 1e-15);  // 0.1 inside the face, plus the radius
  EXPECT_NEAR(inside[0].normal.c[1], -1.0, 1e-15);     // push the box down, the sphere up
}

TEST(RigidCollision, BoxOnAPlaneTouchesWithItsLowestCorners) {
  const auto t = touches(GeomType::kPlane, {1, 1, 1}, {{0, 0, 0}}, kIdentity, GeomType::kBox, {0.3, 0.2, 0.1},
                         {{0, 0, 0.09}}, kIdentity);
  ASSERT_EQ(t.size(), 8u);
  int touching = 0;
  for (const Touch& x : t) touching += std::abs(x.distance + 0.01) < 1e-15;
  EXPECT_EQ(touching, 4);
}

TEST(RigidCollision, EllipsoidOverAPlaneReachesDownByItsRadiusAlongTheNormal) {
  // An ellipsoid with radii (0.3, 0.2, 0.1) turned 90 degrees about x: its 0.2 radius points down.
  const auto t = touches(GeomType::kPlane, {1, 1, 1}, {{0, 0, 0}}, kIdentity, GeomType::kEllipsoid, {0.3, 0.2, 0.1},
                         {{0, 0, 1}}, turn(M_PI / 2, {{1, 0, 0}}));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0].distance, 1.0 - 0.2, 1e-15);
}

TEST(RigidCollision, BoxOnABoxTouchesWithItsFourLowestCorners) {
  // A 0.2 m cube whose bottom face is 0.01 m into a wide slab: its four lower corners are inside,
  // the slab's corners are far outside the cube.
  const auto t = touches(GeomType::kBox, {1, 1, 0.1}, {{0, 0, 0}}, kIdentity, GeomType::kBox, {0.1, 0.1, 0.1},
                         {{0.2, 0.3, 0.19}}, kIdentity);
  ASSERT_EQ(t.size(), 16u);
  int touching = 0;
  for (const Touch& x : t)
    if (x.distance < 0.0) {
      ++touching;
      EXPECT_NEAR(x.distance, -0.01, 1e-15);
      EXPECT_NEAR(x.normal.c[2], 1.0, 1e-15);  // from the slab up to the cube
    }
  EXPECT_EQ(touching, 4);
}

TEST(RigidCollision, RodAcrossAStepEdgeTouchesAtTheEdge) {
  // A rod (radius 0.05, 1 m long) tilted 30 degrees, resting across the top edge of a step whose
  // top is at z = 0.2 and riser at x = 0: the contact is at the edge, not at the rod's ends.
  const double tilt = M_PI / 6, gap = 0.01;
  const Vec3<double> edge{{0.0, 0.0, 0.2}};
  const Vec3<double> along{{std::cos(tilt), 0.0, std::sin(tilt)}}, up{{-std::sin(tilt), 0.0, std::cos(tilt)}};
  const Vec3<double> centre = edge + (0.05 + gap) * up + 0.1 * along;  // the edge 0.4 m from the low end
  const auto t = touches(GeomType::kCapsule, {0.05, 0.5, 0}, centre, turn(M_PI / 2 - tilt, {{0, 1, 0}}),
                         GeomType::kBox, {0.5, 0.5, 0.1}, {{0.5, 0, 0.1}}, kIdentity);
  double nearest = INFINITY;
  for (const Touch& x : t) nearest = std::min(nearest, x.distance);
  EXPECT_NEAR(nearest, gap, 1e-12);
}

TEST(RigidCollision, WheelAgainstAStepEdgeTouchesWithItsRim) {
  // A wheel (radius 0.3, axle along y) whose centre is 0.32 m from the step's edge, diagonally:
  // the rim 0.02 m from it, on both caps, pushed along the line from the edge to the axle (so a
  // wheel rolling against a step is lifted over it, not stopped by the riser).
  const Vec3<double> edge{{0.0, 0.0, 0.1}};
  const Vec3<double> centre = edge + 0.32 * Vec3<double>{{-std::sqrt(0.5), 0.0, std::sqrt(0.5)}};
  const auto t = touches(GeomType::kCylinder, {0.3, 0.05, 0}, centre, turn(M_PI / 2, {{1, 0, 0}}), GeomType::kBox,
                         {0.5, 0.5, 0.05}, {{0.5, 0, 0.05}}, kIdentity);
  ASSERT_EQ(t.size(), 2u);
  for (const Touch& x : t) {
    EXPECT_NEAR(x.distance, 0.02, 1e-12);
    EXPECT_NEAR(x.normal.c[0], std::sqrt(0.5), 1e-12);
    EXPECT_NEAR(x.normal.c[2], -std::sqrt(0.5), 1e-12);
  }
}

// A model from MJCF text with contact between the named geom pairs.
RigidModel with_contact(const char* xml, const char* name, std::vector<GeomPair> pairs) {
  auto mj = testing::load_mujoco_text(xml, name);
  RigidModel m = testing::from_mujoco(mj->m);
  m.contact_pairs = std::move(pairs);
  return m;
}

const char* kSlidingBox = R"(<mujoco><option timestep="0.001"/><worldbody>
  <geom type="plane" size="5 5 1" friction="0.5"/>
  <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" density="1000" friction="0.5"/></body>
</worldbody></mujoco>)";

// A box sliding at v0 on the floor of `xml` (a plane, or a static slab: box-box contact) stops
// after v0^2 / (2 mu g).
void expect_box_slides_to_rest_at_v_squared_over_two_mu_g(const char* xml, const char* name) {
  RigidModel m = with_contact(xml, name, {{0, 1}});
  m.resize(1, 0);
  const double weight = m.body_mass.values()[1] * 9.81;
  m.initial_qpos.values()[2] = 0.1 - weight / 4.0 / m.contact_stiffness.values()[0];  // resting on 4 corners
  const double v0 = 2.0;
  m.initial_qvel.values()[0] = v0;
  RigidWorlds worlds(m);
  std::vector<double> s(static_cast<std::size_t>(worlds.state_size())), next(s.size());
  worlds.initial_state(s);
  for (int t = 0; t < 1000 && (t < 10 || std::abs(s[7]) > 1e-6); ++t) {
    worlds.step(t, s, next, {});
    s.swap(next);
  }
  const double expected = v0 * v0 / (2.0 * 0.5 * 9.81);
  EXPECT_NEAR(s[0] / expected, 1.0, 0.01) << name << " slid " << s[0] << " m, expected " << expected << " m";
}

TEST(RigidContact, ABoxSlidesToRestAtVSquaredOverTwoMuG) {
  expect_box_slides_to_rest_at_v_squared_over_two_mu_g(kSlidingBox, "sliding_box");
}

TEST(RigidContact, ABoxSlidesOnASlabToRestAtVSquaredOverTwoMuG) {
  expect_box_slides_to_rest_at_v_squared_over_two_mu_g(R"(<mujoco><option timestep="0.001"/><worldbody>
      <geom type="box" size="5 5 0.1" pos="0 0 -0.1" friction="0.5"/>
      <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" density="1000" friction="0.5"/></body>
      </worldbody></mujoco>)",
                                                       "box_on_slab");
}

// The free body of `xml`, dropped from `height` onto its floor, comes to rest sunk by its weight
// shared over `points` contact springs, M g / (points k): nearly hard contact, so the springs are
// linear where it rests.
void expect_rests_sunk_by_its_weight(const char* xml, const char* name, double height, int points) {
  RigidModel m = with_contact(xml, name, {{0, 1}});
  m.resize(1, 0);
  m.settings.contact.width = 1e-5;
  const std::vector<double> s = testing::run_steps(m, 3000);
  const double sink = m.body_mass.values()[1] * 9.81 / (points * m.contact_stiffness.values()[0]);
  EXPECT_NEAR(height - s[2], sink, 1e-3 * sink) << name;
  EXPECT_LT(std::abs(s[9]), 1e-9) << name;  // at rest
}

TEST(RigidContact, ARestingBoxSinksByItsWeightOverTheStiffness) {
  expect_rests_sunk_by_its_weight(kSlidingBox, "resting_box", 0.1, 4);
}

// A wheel standing on its rim (axle horizontal) on a slab rests on the two rim points below its
// axle, one per cap, each carrying half its weight.
TEST(RigidContact, AWheelOnASlabSinksByHalfItsWeightOverTheStiffness) {
  expect_rests_sunk_by_its_weight(R"(<mujoco><option timestep="0.001"/><worldbody>
      <geom type="box" size="5 5 0.1" pos="0 0 -0.1"/>
      <body pos="0 0 0.3" euler="90 0 0"><freejoint/><geom type="cylinder" size="0.3 0.05" density="500"/></body>
      </worldbody></mujoco>)",
                                  "wheel_on_slab", 0.3, 2);
}

// The gradient of a rollout through contact of the given pair, against central differences. The
// pair's friction is the larger of its geoms' (as in MuJoCo), a kink where they are equal, so
// the models give their geoms different frictions.
void expect_contact_gradient(const char* xml, const char* name, std::vector<GeomPair> pairs, int steps) {
  RigidModel m = with_contact(xml, name, std::move(pairs));
  m.resize(1, steps);
  m.set_differentiable(true);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& v : m.initial_qvel.values()) v = 0.5 * u(rng);
  RigidLossSettings loss_settings;
  loss_settings.reach_body = 1;
  loss_settings.reach_point = {{0.05, 0.02, 0.0}};
  loss_settings.reach_target = {{0.3, -0.2, 0.2}};
  loss_settings.qvel_target.assign(static_cast<std::size_t>(m.nv), 0.1);
  loss_settings.qvel_weight.assign(static_cast<std::size_t>(m.nv), 0.3);
  RigidWorlds system(m);
  RigidLoss loss(m, loss_settings);
  Rollout rollout(system, loss, steps);
  rollout.loss_and_gradient();
  const char* labels[] = {"geom_friction", "contact_stiffness", "contact_damping", "initial_qpos", "initial_qvel", "body_mass"};
  Array<1>* arrays[] = {&m.geom_friction, &m.contact_stiffness, &m.contact_damping, &m.initial_qpos, &m.initial_qvel, &m.body_mass};
  for (std::size_t k = 0; k < 6; ++k) {
    const double largest = testing::expect_array_gradient(rollout, *arrays[k], std::string(name) + " " + labels[k], 2);
    EXPECT_GT(largest, 1e-8) << name << " " << labels[k] << ": no effect seen";
  }
}

TEST(RigidContact, GradientThroughASphereRollingOnAPlane) {
  expect_contact_gradient(R"(<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="5 5 1"/>
      <body pos="0 0 0.099"><freejoint/><geom type="sphere" size="0.1" friction="0.8"/></body></worldbody></mujoco>)",
                          "sphere_plane", {{0, 1}}, 60);
}

TEST(RigidContact, GradientThroughABoxTumblingOnAPlane) {
  expect_contact_gradient(R"(<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="5 5 1"/>
      <body pos="0 0 0.098" euler="5 3 0"><freejoint/><geom type="box" size="0.1 0.08 0.1" friction="0.7"/></body></worldbody></mujoco>)",
                          "box_plane", {{0, 1}}, 60);
}

TEST(RigidContact, GradientThroughACapsuleStrikingACapsule) {
  expect_contact_gradient(R"(<mujoco><option timestep="0.002" gravity="0 0 0"/><worldbody>
      <body pos="0 0 0.19" euler="0 90 0"><freejoint/><geom type="capsule" size="0.1 0.3"/></body>
      <body pos="0 0 0" euler="90 0 0"><geom type="capsule" size="0.1 0.3" friction="0.6"/></body></worldbody></mujoco>)",
                          "capsule_capsule", {{0, 1}}, 60);
}

TEST(RigidContact, GradientThroughASphereAgainstABox) {
  expect_contact_gradient(R"(<mujoco><option timestep="0.002"/><worldbody>
      <body pos="0.1 0 0.298"><freejoint/><geom type="sphere" size="0.1"/></body>
      <body pos="0 0 0"><geom type="box" size="0.3 0.3 0.2" friction="0.6"/></body></worldbody></mujoco>)",
                          "sphere_box", {{0, 1}}, 60);
}

TEST(RigidContact, GradientThroughABoxTumblingOnABox) {
  expect_contact_gradient(R"(<mujoco><option timestep="0.002"/><worldbody>
      <geom type="box" size="1 1 0.1" pos="0 0 -0.1" friction="0.6"/>
      <body pos="0 0 0.098" euler="5 3 0"><freejoint/><geom type="box" size="0.1 0.08 0.1" friction="0.7"/></body></worldbody></mujoco>)",
                          "box_box", {{0, 1}}, 60);
}

TEST(RigidContact, GradientThroughARodAcrossAStepEdge) {
  expect_contact_gradient(R"(<mujoco><option timestep="0.002"/><worldbody>
      <geom type="box" size="0.5 0.5 0.1" pos="0.5 0 0.1" friction="0.6"/>
      <body pos="0.0621 0 0.2924" euler="0 60 0"><freejoint/><geom type="capsule" size="0.05 0.5" friction="0.8"/></body>
      </worldbody></mujoco>)",
                          "capsule_box", {{0, 1}}, 60);
}

TEST(RigidContact, GradientThroughAWheelAgainstAStepEdge) {
  expect_contact_gradient(R"(<mujoco><option timestep="0.002"/><worldbody>
      <geom type="box" size="0.5 0.5 0.05" pos="0.5 0 0.05" friction="0.6"/>
      <body pos="-0.2114 0 0.3114" euler="90 0 0"><freejoint/><geom type="cylinder" size="0.3 0.05" friction="0.8"/></body>
      </worldbody></mujoco>)",
                          "cylinder_box", {{0, 1}}, 60);
}

}  // namespace
}  // namespace simgrad::rigid

namespace simgrad::rigid {
namespace {

// A standard model dropped from its reference pose, unactuated, for 2 s on simgrad's penalty
// contact (5 substeps) and on MuJoCo's constraint contact: the two are different contact models,
// so the trajectories differ; simgrad's must be physically plausible: no geom sinks through the
// floor, mechanical energy never exceeds the start's (the contact springs only store and
// dissipate), and the model comes to rest at about MuJoCo's height.
void expect_plausible_fall(const char* name, std::vector<double> start, double rest_tolerance) {
  const auto file = testing::mjcf_dir() / (std::string(name) + ".xml");
  auto mj = testing::load_mujoco(file);
  RigidModel m = load_mjcf(file, {.ignore_visual = true});
  m.settings.substeps = 5;
  if (!start.empty()) std::copy(start.begin(), start.end(), m.initial_qpos.values().begin());
  const int steps = static_cast<int>(std::lround(2.0 / m.settings.timestep));
  RigidWorlds worlds(m);
  const RigidTree& tree = worlds.tree();
  const RigidConstants<double> c = constants_of(m);
  RigidWorkspace<double> w;
  w.resize(tree);
  std::vector<double> s(static_cast<std::size_t>(worlds.state_size())), next(s.size());
  worlds.initial_state(s);
  auto energy = [&] {
    forward_kinematics(m, s.data(), w);
    inertias_and_axes(m, c, w);
    body_velocities(m, tree, s.data() + m.nq, w);
    return kinetic_energy(w) + potential_energy(m, w);
  };
  const double e0 = energy();
  double deepest = 0.0, most_energy = e0;
  for (int t = 0; t < steps; ++t) {
    worlds.step(t, s, next, {});
    s.swap(next);
    most_energy = std::max(most_energy, energy());
    for (const GeomPair& pair : m.contact_pairs)
      collide(m.geoms[static_cast<std::size_t>(pair.a)], geom_frame(m.geoms[static_cast<std::size_t>(pair.a)], w),
              m.geoms[static_cast<std::size_t>(pair.b)], geom_frame(m.geoms[static_cast<std::size_t>(pair.b)], w),
              [&deepest](const Vec3<double>&, const Vec3<double>&, double d) { deepest = std::min(deepest, d); });
  }
  mj_resetData(mj->m, mj->d);
  std::copy(m.initial_qpos.values().begin(), m.initial_qpos.values().end(), mj->d->qpos);
  for (int t = 0; t < steps; ++t) mj_step(mj->m, mj->d);
  energy();
  const double ours = w.xpos[1].c[2], theirs = mj->d->xpos[3 + 2];  // the first body's height
  const double total_mass = std::accumulate(m.body_mass.values().begin(), m.body_mass.values().end(), 0.0);
  EXPECT_GT(deepest, -0.02) << name << ": a geom sank " << -deepest << " m into another";
  EXPECT_LE(most_energy, e0 + 1e-9 * total_mass * 9.81) << name << ": energy rose from " << e0 << " to " << most_energy;
  EXPECT_NEAR(ours, theirs, rest_tolerance) << name;
  std::printf("%-8s dropped for 2 s: first body at height %.4f m (MuJoCo %.4f m), deepest overlap %.4f m, energy %.3f -> %.3f J\n",
              name, ours, theirs, -deepest, e0, energy());
}

// The ant from Brax's starting pose (its file's init_qpos: legs within their limits), 0.2 m up.
TEST(RigidContact, TheAntFallsAndRestsOnItsFeetAsInMujoco) {
  expect_plausible_fall("ant", {0, 0, 0.75, 1, 0, 0, 0, 0, 1, 0, -1, 0, -1, 0, 1}, 0.03);
}

// The hopper standing upright, unactuated: it topples and lies on the floor.
TEST(RigidContact, TheHopperFallsOverAndLiesDownAsInMujoco) { expect_plausible_fall("hopper", {}, 0.05); }

}  // namespace
}  // namespace simgrad::rigid
