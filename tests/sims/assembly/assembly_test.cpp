// Assemblies: the checks name the offending part, the compiled model is the one MuJoCo compiles
// from the same MJCF, its masses are the parts', and a rover rolls as Newton says it must.
#include "sims/assembly/assembly.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sims/assembly/plan.hpp"
#include "sims/rigid/rigid_worlds.hpp"
#include "tests/sims/rigid/mujoco_reference.hpp"

namespace simgrad::assembly {
namespace {

// A two-legged machine: a body, a thigh and a shin per leg on motorised hips and sprung knees.
const char* kBiped = R"(
block body size=0.3,0.2,0.1 mass=2
rod thigh_l length=0.2 radius=0.03 mass=0.3
rod thigh_r length=0.2 radius=0.03 mass=0.3
rod shin_l length=0.2 radius=0.025 direction=0.6,0,-0.8 mass=0.2
rod shin_r length=0.2 radius=0.025 direction=0.6,0,-0.8 mass=0.2
hinge hip_l body>thigh_l at=0,0.12,-0.05 axis=0,1,0 range=-1,1
hinge hip_r body>thigh_r at=0,-0.12,-0.05 axis=0,1,0 range=-1,1
hinge knee_l thigh_l>shin_l at=end axis=0,1,0 stiffness=3
ball knee_r thigh_r>shin_r at=end
motor m_l hip_l strength=5
servo s_r hip_r strength=5 gain=20
)";

// The message of the AssemblyError that checking `plan` throws.
std::string error_of(const std::string& plan) {
  try {
    check(parse_plan(plan));
  } catch (const AssemblyError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no AssemblyError for:\n" << plan;
  return "";
}

TEST(Assembly, APlanReadsBackFromItsOwnText) {
  const Assembly a = parse_plan(kBiped);
  ASSERT_EQ(a.parts.size(), 5u);
  ASSERT_EQ(a.connections.size(), 4u);
  ASSERT_EQ(a.actuators.size(), 2u);
  EXPECT_EQ(a.connections[2].at_word, "end");
  EXPECT_EQ(to_mjcf(parse_plan(to_plan(a))), to_mjcf(a));
}

TEST(Assembly, BadMachinesAreErrorsNamingThePart) {
  const std::string biped = kBiped;
  EXPECT_NE(error_of(biped + "rod stray length=0.1\n").find("part \"stray\" is connected to nothing"), std::string::npos);
  EXPECT_NE(error_of(biped + "hinge again body>shin_l at=0,0,0\n").find("part \"shin_l\" hangs from both \"thigh_l\""),
            std::string::npos);
  EXPECT_NE(error_of(biped + "hinge again body>shin_l at=0,0,0\n").find("make one of them a spring"), std::string::npos);
  EXPECT_NE(error_of(biped + "spring s body>shin_l stiffness=0\n").find("a spring's \"stiffness\" must be positive"),
            std::string::npos);
  EXPECT_NE(error_of(biped + "soft_pad pad\nfixed p shin_l>pad\nspring s body>pad stiffness=10\n")
                .find("part \"pad\" is soft; a spring joins two rigid parts"),
            std::string::npos);
  EXPECT_NE(error_of(biped + "spring s body>shin_l to=tip stiffness=10\n").find("part \"shin_l\" has no point \"tip\""),
            std::string::npos);
  EXPECT_NE(error_of(biped + "spring s body>shin_l stiffness=10\nmotor m_s s\n").find("a spring connection cannot be driven"),
            std::string::npos);
  EXPECT_NE(error_of(biped + "motor m_l2 hip_l\n").find("connection \"hip_l\" is already driven by \"m_l\""), std::string::npos);
  EXPECT_NE(error_of(biped + "motor m_k knee_r\n").find("a ball connection cannot be driven"), std::string::npos);
  EXPECT_NE(error_of(biped + "servo s_k knee_l\n").find("give connection \"knee_l\" a \"range\""), std::string::npos);
  EXPECT_NE(error_of(biped + "soft_pad pad\nhinge p shin_l>pad\n").find("soft part \"pad\" hangs by its own springs"),
            std::string::npos);
  EXPECT_NE(error_of(biped + "soft_pad pad\nfixed p shin_l>pad\nrod r\nfixed q pad>r\n").find("part \"pad\" is soft"),
            std::string::npos);
  EXPECT_NE(error_of(biped + "rod tip\nfixed t body>tip at=end\n").find("part \"body\" has no point \"end\""),
            std::string::npos);
  EXPECT_NE(error_of(biped + "hinge loop shin_l>body\n").find("\"body\" is the root"), std::string::npos);
  EXPECT_NE(error_of(biped + "block body\n").find("part \"body\": the name is taken"), std::string::npos);
  EXPECT_NE(error_of(biped + "block a<b\nfixed f body>a<b\n").find("part \"a<b\": a name is made of letters"),
            std::string::npos);
  EXPECT_NE(error_of("block a size=0.1,-1,0.1\n").find("part \"a\": every side of \"size\" must be positive"), std::string::npos);
  // The plan's own errors name their line.
  EXPECT_NE(error_of("block a\nrod b lenght=2\n").find("plan line 2: a part has no field \"lenght\""), std::string::npos);
  EXPECT_NE(error_of("block a\nhinge h a-b\n").find("plan line 2: connection \"h\" expects PARENT>CHILD"), std::string::npos);
  EXPECT_NE(error_of("gear g\n").find("plan line 1: \"gear\" is not a part"), std::string::npos);
  EXPECT_NE(error_of("block a size=1,x2,3\n").find("plan line 1: \"size\": \"1,x2,3\" is not a number"), std::string::npos);
}

TEST(Assembly, TheModelIsTheOneMujocoCompilesFromTheSameMjcf) {
  const Assembly a = parse_plan(kBiped);
  const rigid::RigidModel m = build(a);
  auto mj = rigid::testing::load_mujoco_text(to_mjcf(a), "biped");
  ASSERT_EQ(m.nq, mj->m->nq);
  ASSERT_EQ(m.nv, mj->m->nv);
  ASSERT_EQ(m.nu(), mj->m->nu);
  ASSERT_EQ(static_cast<int>(m.bodies.size()), mj->m->nbody);
  for (int b = 1; b < mj->m->nbody; ++b) {
    const double mass = mj->m->body_mass[b];
    EXPECT_NEAR(m.body_mass.values()[static_cast<std::size_t>(b)], mass, 1e-12 * mass) << m.bodies[static_cast<std::size_t>(b)].name;
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(m.bodies[static_cast<std::size_t>(b)].pos.c[k], mj->m->body_pos[3 * b + k], 1e-12);
      EXPECT_NEAR(m.bodies[static_cast<std::size_t>(b)].centre.c[k], mj->m->body_ipos[3 * b + k], 1e-12);
    }
  }
  // Each part weighs what the plan says; the whole machine, their sum.
  double total = 0.0;
  for (const double x : m.body_mass.values()) total += x;
  EXPECT_NEAR(total, 2.0 + 2 * 0.3 + 2 * 0.2, 1e-12);
  // Parts touch the ground and not each other.
  EXPECT_EQ(m.contact_pairs.size(), 5u);
}

TEST(Assembly, AMachineStartsStandingOnTheGround) {
  Assembly a = parse_plan(kBiped);
  const rigid::RigidModel m = build(a);
  // The shins reach lowest: the hip at -0.05, a thigh 0.2 down, a shin 0.16 further down and
  // its radius 0.025 below that; the body's origin goes 1 mm above it.
  EXPECT_NEAR(m.qpos0[2], 0.05 + 0.2 + 0.16 + 0.025 + 0.001, 1e-12);
}

// The state of world 0 after `steps` steps of a one-world model (past its recorded controls, the
// last row holds; none recorded: zero).
std::vector<double> run(rigid::RigidModel& m, int steps) {
  rigid::RigidWorlds worlds(m);
  std::vector<double> state(static_cast<std::size_t>(worlds.state_size())), next(state.size());
  std::vector<double> residual(static_cast<std::size_t>(worlds.residual_size()));
  worlds.initial_state(state);
  for (int t = 0; t < steps; ++t) {
    worlds.step(t, state, next, residual);
    state.swap(next);
  }
  return state;
}

// Chassis speed after `seconds` of a constant drive `control` on every wheel motor.
double rover_speed(rigid::RigidModel& m, double control, double seconds) {
  const int steps = static_cast<int>(std::lround(seconds / m.settings.timestep));
  m.resize(1, steps);
  std::fill(m.controls.values().begin(), m.controls.values().end(), control);
  return run(m, steps)[static_cast<std::size_t>(m.nq)];  // the free joint's world-frame x velocity
}

TEST(Assembly, ARoverAcceleratesAsTorqueOverRadiusOverRollingMass) {
  // Four wheels of radius r and mass m_w (axle inertia m_w r^2 / 2) under torque tau each, no
  // losses: rolling without slip, F = 4 tau / r moves M + 4 I / r^2 (the wheels' rotation adds
  // half their mass each), so a = 4 tau / r / (M + 2 m_w).
  const double r = 0.1, m_w = 0.5, chassis = 3.0, tau = 0.2;
  const std::string wheel = " axis=0,1,0 damping=0 armature=0\n";
  Assembly a = parse_plan("block chassis size=0.5,0.3,0.06 mass=3\n"
                          "wheel w1 radius=0.1 width=0.04 mass=0.5\nwheel w2 radius=0.1 width=0.04 mass=0.5\n"
                          "wheel w3 radius=0.1 width=0.04 mass=0.5\nwheel w4 radius=0.1 width=0.04 mass=0.5\n"
                          "hinge a1 chassis>w1 at=0.2,0.2,0" + wheel + "hinge a2 chassis>w2 at=0.2,-0.2,0" + wheel +
                          "hinge a3 chassis>w3 at=-0.2,0.2,0" + wheel + "hinge a4 chassis>w4 at=-0.2,-0.2,0" + wheel +
                          "motor d1 a1\nmotor d2 a2\nmotor d3 a3\nmotor d4 a4\n");
  a.environment.timestep = 0.0005;
  rigid::RigidModel m = build(a);
  m.settings.contact.width = 0.002;
  m.settings.contact.slip_speed = 0.001;
  const double expected = 4.0 * tau / r / (chassis + 4.0 * m_w + 2.0 * m_w);
  // Measured between 0.3 s and 0.8 s, after the wheels have settled into the ground.
  const double a_measured = (rover_speed(m, tau, 0.8) - rover_speed(m, tau, 0.3)) / 0.5;
  EXPECT_NEAR(a_measured, expected, 0.02 * expected);
}


// A loose crate on a tray that a motor pushes along a rail: below mu g the crate rides along at
// the tray's acceleration F / (m_tray + m_crate); above it, it slides and accelerates at mu g
// while the tray runs ahead at (F - mu m_crate g) / m_tray (box-box contact with Coulomb
// friction, through an assembly's load).
double crate_acceleration(double force, double& tray_acceleration) {
  Assembly a = parse_plan("block base size=2,0.5,0.1 mass=10\nblock tray size=0.6,0.4,0.04 mass=2 friction=0.5\n"
                          "slider rail base>tray at=0,0,0.07 axis=1,0,0 damping=0 armature=0\n"
                          "motor push rail strength=" + number_text(force) + "\nbase fixed\nstart 0,0,0.05\n");
  a.environment.loads.push_back(
      {.name = "crate", .size = {{0.1, 0.1, 0.1}}, .at = {{0.15, 0.0, 0.05 + 0.07 + 0.02 + 0.05 + 0.003}}, .mass = 1.0, .friction = 0.5});
  a.environment.timestep = 0.0005;
  rigid::RigidModel m = build(a);
  m.settings.contact.width = 0.002;
  m.settings.contact.slip_speed = 0.001;
  // The speeds of the tray (the slider's) and the crate (its free joint's x) at 0.1 s and 0.3 s.
  auto speeds = [&m](double seconds) {
    const int steps = static_cast<int>(std::lround(seconds / m.settings.timestep));
    m.resize(1, steps);
    std::fill(m.controls.values().begin(), m.controls.values().end(), 1.0);
    const std::vector<double> s = run(m, steps);
    return std::pair{s[static_cast<std::size_t>(m.nq)], s[static_cast<std::size_t>(m.nq + 1)]};
  };
  const auto [tray0, crate0] = speeds(0.1);
  const auto [tray1, crate1] = speeds(0.3);
  tray_acceleration = (tray1 - tray0) / 0.2;
  return (crate1 - crate0) / 0.2;
}

TEST(Assembly, ALooseLoadRidesBelowMuGAndSlidesAtMuGAbove) {
  const double mu_g = 0.5 * 9.81;
  double tray = 0.0;
  const double riding = crate_acceleration(6.0, tray);  // 6 N on 3 kg: 2 m/s^2 < mu g
  EXPECT_NEAR(riding, 2.0, 0.02 * 2.0);
  EXPECT_NEAR(tray, 2.0, 0.02 * 2.0);
  const double sliding = crate_acceleration(30.0, tray);  // 10 m/s^2 > mu g
  EXPECT_NEAR(sliding, mu_g, 0.02 * mu_g);
  EXPECT_NEAR(tray, (30.0 - mu_g) / 2.0, 0.02 * (30.0 - mu_g) / 2.0);
}

TEST(Assembly, ObstaclesAndLoadsCompileToFixedAndFreeBoxes) {
  Assembly a = parse_plan(kBiped);
  a.environment.obstacles.push_back({.name = "step", .size = {{1.0, 2.0, 0.1}}, .at = {{1.0, 0.0, 0.05}}});
  a.environment.loads.push_back({.name = "crate", .size = {{0.2, 0.2, 0.2}}, .at = {{0.0, 0.0, 1.0}}, .mass = 2.0});
  const rigid::RigidModel m = build(a);
  const rigid::RigidModel bare = build(parse_plan(kBiped));
  EXPECT_EQ(m.nq, bare.nq + 7);  // the crate's free joint
  EXPECT_EQ(m.bodies.size(), bare.bodies.size() + 1);
  EXPECT_DOUBLE_EQ(m.body_mass.values().back(), 2.0);
  // Every rigid part now also touches the step and the crate; the crate touches the ground and
  // the step.
  const std::size_t parts = bare.contact_pairs.size();
  EXPECT_EQ(m.contact_pairs.size(), 3 * parts + 2);
  auto error = [&](WorldBox box, bool loose) {
    Assembly b = parse_plan(kBiped);
    (loose ? b.environment.loads : b.environment.obstacles).push_back(box);
    try {
      check(b);
    } catch (const AssemblyError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error({.name = "body"}, false).find("obstacle \"body\": the name is taken"), std::string::npos);
  EXPECT_NE(error({.name = "w", .size = {{1, 0, 1}}}, false).find("obstacle \"w\": \"size\" must be positive"), std::string::npos);
  EXPECT_NE(error({.name = "c", .mass = -1.0}, true).find("load \"c\": \"mass\" must be positive"), std::string::npos);
}

TEST(Assembly, ASpringClosesALoopAtRestAtItsStartingLength) {
  // The biped's feet joined by a spring: a loop (body, left leg, spring, right leg) that a second
  // joint would over-constrain. Its rest length is the feet's distance at the start, so without
  // gravity the machine starts, and stays, at rest.
  Assembly a = parse_plan(std::string(kBiped) + "spring ankles shin_l>shin_r at=end to=end stiffness=50 damping=0.5\n");
  a.environment.gravity = Vec3<double>::zero();
  a.environment.ground = false;
  rigid::RigidModel m = build(a);
  ASSERT_EQ(m.body_springs.size(), 1u);
  // The shins' ends, both 0.2 m along (0.6, 0, -0.8) from knees 0.24 m apart along y.
  EXPECT_NEAR(m.body_springs[0].length, 0.24, 1e-12);
  EXPECT_EQ(m.spring_stiffness.values()[0], 50.0);
  m.resize(1, 100);
  const std::vector<double> end = run(m, 100);
  for (int d = 0; d < m.nv; ++d) EXPECT_EQ(end[static_cast<std::size_t>(m.nq + d)], 0.0) << "dof " << d;
  EXPECT_NE(to_plan(a).find("spring ankles shin_l>shin_r at=end axis=0,1,0 to=end stiffness=50 damping=0.5"),
            std::string::npos);
}

// Linear momentum of a one-body machine whose centre of mass is its origin, and its soft nodes.
rigid::Vec3<double> momentum(const rigid::RigidModel& m, const std::vector<double>& state) {
  rigid::Vec3<double> p = Vec3<double>::zero();
  const double body_mass = m.body_mass.values()[1];
  for (int k = 0; k < 3; ++k) p.c[k] = body_mass * state[static_cast<std::size_t>(m.nq + k)];
  const std::size_t n = m.soft_nodes.size(), v = static_cast<std::size_t>(m.nq + m.nv) + 3 * n;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < 3; ++k) p.c[k] += m.soft_nodes[i].mass * state[v + 3 * i + k];
  return p;
}

TEST(Assembly, SoftPartsPushTheBodiesBackEquallyAndOppositely) {
  // A spinning, drifting block with a soft cell hanging from it, far from anything and without
  // gravity: springs and anchors are internal forces, so the momentum of block and nodes together
  // stays what it was, while the cell wobbles.
  Assembly a = parse_plan("block b size=0.2,0.2,0.1 mass=1\nsoft_cell c size=0.1,0.1,0.1 child_at=0,0,0.05 mass=0.2\n"
                          "fixed mount b>c at=0.05,0,-0.05\nstart 0,0,1\n");
  a.environment.ground = false;
  a.environment.gravity = Vec3<double>::zero();
  a.environment.timestep = 0.0005;  // the explicit step resolves the cell's stiffest springs
  rigid::RigidModel m = build(a);
  ASSERT_EQ(m.soft_nodes.size(), 27u);
  m.resize(1, 0);  // zero controls from the first step on
  const double start_velocity[6] = {0.3, 0.0, 0.2, 0.0, 2.0, 1.0};  // linear (world), angular (body)
  std::copy(start_velocity, start_velocity + 6, m.initial_qvel.values().begin());
  std::vector<double> start = run(m, 0), later = run(m, 400);
  const rigid::Vec3<double> before = momentum(m, start), after = momentum(m, later);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(after.c[k], before.c[k], 1e-12) << "component " << k;
  // Not trivially: the cell has moved relative to the block.
  EXPECT_GT(std::abs(later[static_cast<std::size_t>(m.nq + m.nv)] - start[static_cast<std::size_t>(m.nq + m.nv)]), 0.01);
}

TEST(Assembly, AHangingSoftCellSettlesWithItsAnchorsCarryingItsWeight) {
  // A cell under a fixed beam, damped, settles where its anchor springs hold exactly its weight.
  Assembly a = parse_plan("block beam size=0.3,0.1,0.05 mass=1\nsoft_cell c size=0.1,0.1,0.1 child_at=0,0,0.05 mass=0.5 "
                          "stiffness=2000 damping=2\nfixed mount beam>c at=0,0,-0.025\nbase fixed\nstart 0,0,1\n");
  a.environment.timestep = 0.0005;
  rigid::RigidModel m = build(a);
  m.resize(1, 0);
  const std::vector<double> state = run(m, 8000);  // 4 s
  const std::size_t x = static_cast<std::size_t>(m.nq + m.nv);
  double lift = 0.0;
  for (const rigid::SoftAnchor& anchor : m.soft_anchors) {
    // The beam does not move: the anchor point stays where the node started.
    const double held = 1.0 + anchor.point.c[2];
    lift += anchor.stiffness * (held - state[x + 3 * static_cast<std::size_t>(anchor.node) + 2]);
  }
  EXPECT_NEAR(lift, 0.5 * 9.81, 1e-6 * 0.5 * 9.81);
}

}  // namespace
}  // namespace simgrad::assembly
