// The rigid step against MuJoCo's own C engine (same compiled model, same state, same controls,
// one mj_step), and against closed forms and conservation laws.
#include "sims/rigid/step.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

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
  RigidConstants<double> c;
  c.resize(m);
  const auto model = m.constant_arrays();
  const auto mine = c.arrays();
  for (std::size_t k = 0; k < mine.size(); ++k) mine[k]->assign(model[k]->values().begin(), model[k]->values().end());
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

// From 100 random states and controls, one step of simgrad and of MuJoCo agree to 1e-10.
void expect_one_step_agreement(testing::MujocoModel& mj, const char* name) {
  // Contact is off in MuJoCo: these are the contact-free checks (contact is modelled differently).
  mj.m->opt.disableflags |= mjDSBL_CONTACT;
  RigidModel m = from_mujoco(mj.m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0.0;
  for (int trial = 0; trial < 100; ++trial) {
    const std::vector<double> s = testing::random_state(m, rng);
    std::vector<double> ctrl(static_cast<std::size_t>(m.nu()));
    for (double& x : ctrl) x = u(rng);
    worst = std::max(worst, relative_difference(simgrad_step(m, s, ctrl), testing::mujoco_step(mj, s, ctrl)));
  }
  EXPECT_LT(worst, 1e-10) << name;
  std::printf("%-28s one step, worst relative difference from MuJoCo over 100 states: %.2e\n", name, worst);
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

TEST(RigidStep, OneStepAgreesWithMujocoOnTheAntInTheAir) {
  auto mj = load_mujoco(testing::mjcf_dir() / "ant.xml");
  expect_one_step_agreement(*mj, "ant (contact off)");
}

TEST(RigidStep, OneStepAgreesWithMujocoOnTheHumanoidInTheAir) {
  auto mj = load_mujoco(testing::mjcf_dir() / "humanoid.xml");
  expect_one_step_agreement(*mj, "humanoid (contact off)");
}

}  // namespace
}  // namespace simgrad::rigid
