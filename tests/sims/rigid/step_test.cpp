// The rigid step against MuJoCo's own C engine (same compiled model, same state, same controls,
// one mj_step), and against closed forms and conservation laws.
#include "sims/rigid/step.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "sims/rigid/mjcf.hpp"
#include "sims/rigid/tree.hpp"
#include "tests/sims/rigid/mujoco_reference.hpp"
#include "tests/sims/rigid/test_models.hpp"

namespace simgrad::rigid {
namespace {

using testing::from_mujoco;
using testing::load_mujoco;
using testing::load_mujoco_text;

// One simgrad step of model m from state s under ctrl.
std::vector<double> simgrad_step(RigidModel& m, const std::vector<double>& s, const std::vector<double>& ctrl) {
  RigidTree tree(m);
  const RigidConstants<double> c = constants_of(m);
  RigidWorkspace<double> w;
  w.resize(tree);
  std::vector<double> next(s.size());
  EXPECT_TRUE(rigid_step(m, tree, c, s.data(), ctrl.data(), next.data(), w));
  return next;
}

// Largest |a - b| relative to max(1, |b|).
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i])));
  return worst;
}

// The largest relative difference of one step of simgrad's model m and of MuJoCo's from
// `trials` random states and controls.
double worst_one_step_difference(testing::MujocoModel& mj, RigidModel& m, int trials, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0.0;
  for (int trial = 0; trial < trials; ++trial) {
    const std::vector<double> s = testing::random_state(m, rng);
    std::vector<double> ctrl(static_cast<std::size_t>(m.nu()));
    for (double& x : ctrl) x = u(rng);
    worst = std::max(worst, relative_difference(simgrad_step(m, s, ctrl), testing::mujoco_step(mj, s, ctrl)));
  }
  return worst;
}

// From 100 random states and controls, one step of simgrad and of MuJoCo agree to 1e-10.
void expect_one_step_agreement(testing::MujocoModel& mj, const char* name) {
  // Contact is off in MuJoCo: these are the contact-free checks (contact is modelled differently).
  mj.m->opt.disableflags |= mjDSBL_CONTACT;
  RigidModel m = from_mujoco(mj.m);
  const double worst = worst_one_step_difference(mj, m, 100, 7);
  EXPECT_LT(worst, 1e-10) << name;
  std::printf("%-28s one step, worst relative difference from MuJoCo over 100 states: %.2e\n", name, worst);
}

// The whole path, file to step: each standard model read by simgrad's MJCF reader steps as the
// same file compiled by MuJoCo does (contact off in both).
TEST(RigidStep, EveryStandardModelReadBySimgradStepsAsMujoco) {
  for (const char* name : {"ant", "half_cheetah", "hopper", "humanoid", "inverted_double_pendulum", "inverted_pendulum",
                           "reacher", "swimmer", "walker2d"}) {
    const auto file = testing::mjcf_dir() / (std::string(name) + ".xml");
    auto mj = load_mujoco(file);
    mj->m->opt.disableflags |= mjDSBL_CONTACT;
    RigidModel m = load_mjcf(file, {.ignore_visual = true});
    m.contact_pairs.clear();
    const double worst = worst_one_step_difference(*mj, m, 20, 9);
    EXPECT_LT(worst, 1e-10) << name;
    std::printf("%-28s read by simgrad, one step, worst relative difference from MuJoCo: %.2e\n", name, worst);
  }
}

TEST(RigidStep, OneStepAgreesWithMujocoOnTheInvertedPendulum) {
  auto mj = load_mujoco(testing::mjcf_dir() / "inverted_pendulum.xml");
  expect_one_step_agreement(*mj, "inverted_pendulum");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnTheInvertedDoublePendulum) {
  auto mj = load_mujoco(testing::mjcf_dir() / "inverted_double_pendulum.xml");
  expect_one_step_agreement(*mj, "inverted_double_pendulum");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnTheReacher) {
  auto mj = load_mujoco(testing::mjcf_dir() / "reacher.xml");
  expect_one_step_agreement(*mj, "reacher");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnAFreeBox) {
  auto mj = load_mujoco_text(testing::kFreeBoxXml, "free_box");
  expect_one_step_agreement(*mj, "free_box");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnATenLinkChain) {
  auto mj = load_mujoco_text(testing::chain_xml(), "chain");
  expect_one_step_agreement(*mj, "chain (Euler)");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnATenLinkChainWithRk4) {
  auto mj = load_mujoco_text(testing::chain_xml("RK4"), "chain_rk4");
  expect_one_step_agreement(*mj, "chain (RK4)");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnABallPendulumWithServos) {
  auto mj = load_mujoco_text(testing::kBallPendulumXml, "ball_pendulum");
  expect_one_step_agreement(*mj, "ball_pendulum");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnTheSwimmerInItsFluid) {
  auto mj = load_mujoco(testing::mjcf_dir() / "swimmer.xml");
  expect_one_step_agreement(*mj, "swimmer (viscosity, drag)");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnTheAntInTheAir) {
  auto mj = load_mujoco(testing::mjcf_dir() / "ant.xml");
  expect_one_step_agreement(*mj, "ant (contact off)");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnTheHumanoidInTheAir) {
  auto mj = load_mujoco(testing::mjcf_dir() / "humanoid.xml");
  expect_one_step_agreement(*mj, "humanoid (contact off)");
}

// Largest relative difference, step by step, of two 1,000-step trajectories: simgrad's and
// MuJoCo's from the same start, and MuJoCo's from that start and from the start moved by 1e-15
// (what rounding alone does). Joint limits and contact are off in both (modelled differently).
struct Divergence {
  std::vector<double> from_mujoco;
  std::vector<double> mujoco_from_itself;
};

Divergence trajectory_divergence(testing::MujocoModel& mj, int steps, unsigned seed, double speed) {
  mj.m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT;
  RigidModel m = from_mujoco(mj.m);
  for (Joint& j : m.joints) j.limited = false;
  std::mt19937 rng(seed);
  std::vector<double> ours = testing::random_state(m, rng, speed);
  std::vector<double> theirs = ours, perturbed = ours;
  for (double& x : perturbed) x *= 1.0 + 1e-15;
  const std::vector<double> ctrl(static_cast<std::size_t>(m.nu()), 0.0);
  Divergence d;
  for (int t = 0; t < steps; ++t) {
    ours = simgrad_step(m, ours, ctrl);
    theirs = testing::mujoco_step(mj, theirs, ctrl);
    perturbed = testing::mujoco_step(mj, perturbed, ctrl);
    d.from_mujoco.push_back(relative_difference(ours, theirs));
    d.mujoco_from_itself.push_back(relative_difference(perturbed, theirs));
  }
  return d;
}

// A model that is not chaotic: the whole trajectory agrees to 1e-8.
void expect_trajectory_agreement(testing::MujocoModel& mj, const char* name) {
  const Divergence d = trajectory_divergence(mj, 1000, 11, 0.5);
  const double worst = *std::max_element(d.from_mujoco.begin(), d.from_mujoco.end());
  EXPECT_LT(worst, 1e-8) << name;
  std::printf("%-28s 1,000 steps, worst relative difference from MuJoCo: %.2e (MuJoCo from itself moved by 1e-15: %.2e)\n",
              name, worst, *std::max_element(d.mujoco_from_itself.begin(), d.mujoco_from_itself.end()));
}

// A chaotic model: simgrad stays within 1e-8 of MuJoCo, or within 1000 times what a 1e-15 move of
// MuJoCo's own start does, at every step.
void expect_chaotic_agreement(testing::MujocoModel& mj, const char* name) {
  const Divergence d = trajectory_divergence(mj, 1000, 12, 2.0);
  int first_beyond = -1;
  for (std::size_t t = 0; t < d.from_mujoco.size(); ++t) {
    EXPECT_LE(d.from_mujoco[t], std::max(1e-8, 1000.0 * d.mujoco_from_itself[t])) << name << " step " << t;
    if (first_beyond < 0 && d.from_mujoco[t] > 1e-8) first_beyond = static_cast<int>(t);
  }
  std::printf("%-28s 1,000 steps: within 1e-8 of MuJoCo until step %d; final difference %.2e, MuJoCo from itself %.2e\n",
              name, first_beyond < 0 ? 1000 : first_beyond, d.from_mujoco.back(), d.mujoco_from_itself.back());
}

TEST(RigidStep, TrajectoryAgreesWithMujocoOnTheInvertedPendulum) {
  auto mj = load_mujoco(testing::mjcf_dir() / "inverted_pendulum.xml");
  expect_trajectory_agreement(*mj, "inverted_pendulum");
}

TEST(RigidStep, TrajectoryAgreesWithMujocoOnTheReacher) {
  auto mj = load_mujoco(testing::mjcf_dir() / "reacher.xml");
  expect_trajectory_agreement(*mj, "reacher");
}

TEST(RigidStep, TrajectoryAgreesWithMujocoOnAFreeBox) {
  auto mj = load_mujoco_text(testing::kFreeBoxXml, "free_box_trajectory");
  expect_trajectory_agreement(*mj, "free_box");
}

TEST(RigidStep, TrajectoryAgreesWithMujocoOnTheSwimmer) {
  auto mj = load_mujoco(testing::mjcf_dir() / "swimmer.xml");
  expect_trajectory_agreement(*mj, "swimmer");
}

TEST(RigidStep, TrajectoryFollowsMujocoOnTheDoublePendulumUntilRoundingDiverges) {
  auto mj = load_mujoco(testing::mjcf_dir() / "inverted_double_pendulum.xml");
  expect_chaotic_agreement(*mj, "inverted_double_pendulum");
}

TEST(RigidStep, TrajectoryFollowsMujocoOnAChainUntilRoundingDiverges) {
  auto mj = load_mujoco_text(testing::chain_xml("RK4"), "chain_trajectory");
  expect_chaotic_agreement(*mj, "chain (RK4)");
}

TEST(RigidStep, TrajectoryFollowsMujocoOnTheAntInTheAir) {
  auto mj = load_mujoco(testing::mjcf_dir() / "ant.xml");
  expect_chaotic_agreement(*mj, "ant (contact off)");
}

}  // namespace
}  // namespace simgrad::rigid
