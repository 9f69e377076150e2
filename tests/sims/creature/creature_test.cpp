#include "sims/creature/creature.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/creature/body_plan.hpp"
#include "sims/creature/losses.hpp"
#include "tests/sims/state_hash.hpp"
#include "tune/problem.hpp"

namespace simgrad::creature {
namespace {

using simgrad::testing::hash_doubles;

// A body plan assembled into `copies` creatures with a neural controller, a task loss and a
// rollout problem over the controller's parameters.
struct Rig {
  BodyPlan plan;
  softbody::MassSpringModel<2> model;
  std::unique_ptr<control::Controller> controller;
  std::unique_ptr<Creature> creature;
  std::unique_ptr<TaskLoss> loss;
  std::unique_ptr<tune::RolloutProblem> problem;

  Rig(int robot, int copies, int steps, Task task, BodyOptions settings = {}, const char* policy = "all",
      bool sines = false)
      : plan(difftaichi_robot(robot)) {
    settings.steps = steps;
    model = assemble(plan, copies, settings);
    control::ControllerLayout layout;
    layout.creatures = copies;
    layout.nodes = static_cast<int>(plan.nodes.size());
    for (std::int32_t e : plan.actuated()) layout.strength.push_back(plan.springs[static_cast<std::size_t>(e)].actuation);
    layout.dt = settings.dt;
    if (sines) {
      controller = std::make_unique<control::SineBank>(layout);
    } else {
      auto nn = std::make_unique<control::NeuralController>(layout);
      nn->initialise(3, static_cast<int>(plan.springs.size()));
      controller = std::move(nn);
    }
    creature = std::make_unique<Creature>(model, *controller, 0.02);
    loss = std::make_unique<TaskLoss>(*creature, task, plan.head, Vec<double, 2>{{0.5, 0.3}});
    RolloutOptions options;
    options.checkpoint = CheckpointPolicy::parse(policy);
    problem = std::make_unique<tune::RolloutProblem>(*creature, *loss, steps, options, controller->bind(100.0));
  }
};

// A penalty ground keeps the rollout smooth for finite differences.
BodyOptions smooth_ground() {
  BodyOptions s;
  s.ground_model = softbody::ContactModel::kPenalty;
  s.ground_friction = 0.5;
  s.penalty = {2e3, 300.0, 0.05};
  return s;
}

void check_rollout(Rig& rig, double rtol) {
  const std::vector<double> x = rig.problem->initial();
  std::vector<double> g(x.size());
  rig.problem->value_and_gradient(x, g);
  GradCheckOptions options;
  options.random_directions = 4;
  options.rtol = rtol;
  options.atol = 1e-8;
  options.step = 1e-5;
  const GradCheckReport report = check_gradient([&](std::span<const double> p) { return rig.problem->value(p); }, x, g, options);
  EXPECT_TRUE(report.ok);
  for (const auto& c : report.checks)
    if (!c.ok) ADD_FAILURE() << c.label << " ad " << c.ad << " fd " << c.fd;
}

TEST(CreatureRollout, WalkByHeadGradientMatchesFiniteDifferences) {
  Rig rig(0, 1, 60, Task::kWalkHead, smooth_ground());
  check_rollout(rig, 1e-4);
}

TEST(CreatureRollout, WalkByCentreJumpAndReachGradientsMatchFiniteDifferences) {
  for (Task task : {Task::kWalkCentre, Task::kJump, Task::kReach}) {
    Rig rig(1, 2, 50, task, smooth_ground());
    check_rollout(rig, 1e-4);
  }
}

TEST(CreatureRollout, SineBankGradientMatchesFiniteDifferences) {
  Rig rig(2, 1, 60, Task::kWalkHead, smooth_ground(), "all", true);
  check_rollout(rig, 1e-4);
}

// Time-of-impact ground: the gradient still agrees where no landing moves across a step.
TEST(CreatureRollout, TimeOfImpactGroundGradientMatchesFiniteDifferences) {
  Rig rig(0, 1, 40, Task::kWalkHead);
  check_rollout(rig, 1e-3);
}

// The peak is a smooth maximum over the steps: above the hard maximum by at most tau log(steps + 1).
TEST(CreatureRollout, JumpPeakBoundsTheHardPeak) {
  Rig rig(0, 1, 80, Task::kJump, smooth_ground());
  double hard_peak = -1e9;
  RolloutOptions record;
  record.observer = [&](int, std::span<const double> s) { hard_peak = std::max(hard_peak, rig.creature->centre_height(s, 0)); };
  Rollout rollout(*rig.creature, *rig.loss, 80, record);
  rollout.loss();
  const double smooth = rig.loss->figure(rollout.final_state(), 0);
  EXPECT_GE(smooth, hard_peak);
  EXPECT_LE(smooth, hard_peak + 0.02 * std::log(81.0));
  rig.creature->peak_temperature = 0.0;
  rollout.loss();
  EXPECT_EQ(rig.loss->figure(rollout.final_state(), 0), hard_peak);
}

TEST(CreatureRollout, SwimGradientMatchesFiniteDifferences) {
  BodyOptions water_only;
  water_only.ground = false;
  water_only.gravity = 0.0;
  water_only.drag = 0.0;
  Rig rig(1, 1, 60, Task::kWalkCentre, water_only, "every:7", true);
  rig.creature->set_water({20.0, 2.0});
  check_rollout(rig, 1e-4);
}

// A rigidly moving rod in water: its ends lose the share 0.5 dt c L of their speed across it,
// and 0.5 dt c_t L of that along it, every step (unit masses, no other force).
TEST(CreatureRollout, WaterSlowsARodAtTheClosedFormRate) {
  BodyPlan rod;
  rod.nodes = {{{0.0, 0.0}}, {{0.3, 0.4}}};
  rod.springs = {{0, 1, 0.5, 100.0, 0.2}};
  BodyOptions s;
  s.ground = false;
  s.gravity = 0.0;
  s.drag = 0.0;
  s.length_epsilon = 0.0;
  s.steps = 10;
  auto model = assemble(rod, 1, s);
  control::ControllerLayout layout;
  layout.nodes = 2;
  layout.strength = {0.0};  // the spring stays at rest length
  control::SineBank bank(layout);
  Creature creature(model, bank);
  creature.set_water({8.0, 3.0});
  const Vec<double, 2> t{{0.6, 0.8}}, n{{-0.8, 0.6}};
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 2; ++k) model.initial_velocity.values()[2 * i + k] = 0.7 * n[k] + 0.2 * t[k];
  TaskLoss loss(creature, Task::kWalkCentre, 0);
  Rollout rollout(creature, loss, 10);
  rollout.loss();
  const auto state = rollout.final_state();
  const Vec<double, 2> v{{state[4], state[5]}};
  EXPECT_NEAR(dot(v, n), 0.7 * std::pow(1.0 - 0.5 * 0.004 * 8.0 * 0.5, 10), 1e-14);
  EXPECT_NEAR(dot(v, t), 0.2 * std::pow(1.0 - 0.5 * 0.004 * 3.0 * 0.5, 10), 1e-14);
}

// Carrying: a block cell's corners are heavier, and -x of their centre has the right gradient.
TEST(CreatureRollout, CarryGradientMatchesFiniteDifferences) {
  const BodyPlan plan = parse_grid({".B.", "#H#", "V.V"}, {});
  ASSERT_EQ(plan.block.size(), 4u);
  BodyOptions settings = smooth_ground();
  settings.steps = 50;
  auto model = assemble(plan, 1, settings);
  EXPECT_EQ(model.inverse_mass.values()[static_cast<std::size_t>(plan.block[3])], 0.25);
  control::ControllerLayout layout;
  layout.nodes = static_cast<int>(plan.nodes.size());
  for (std::int32_t e : plan.actuated()) layout.strength.push_back(plan.springs[static_cast<std::size_t>(e)].actuation);
  control::NeuralController nn(layout);
  nn.initialise(5, static_cast<int>(plan.springs.size()));
  Creature creature(model, nn);
  TaskLoss loss(creature, Task::kCarry, plan.head, Vec<double, 2>::zero(), plan.block);
  tune::RolloutProblem problem(creature, loss, 50, {}, nn.bind(100.0));
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  GradCheckOptions options;
  options.random_directions = 4;
  options.atol = 1e-8;
  options.step = 1e-5;
  const GradCheckReport report = check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g, options);
  EXPECT_TRUE(report.ok);
  for (const auto& c : report.checks)
    if (!c.ok) ADD_FAILURE() << c.label << " ad " << c.ad << " fd " << c.fd;
}

// DiffTaichi's ground: a falling rod lands, stops at the ground and rests on it, without
// sinking step after step under gravity.
TEST(CreatureRollout, ImpactStopGroundHoldsALandedBodyAtItsHeight) {
  BodyPlan rod;
  rod.nodes = {{{0.2, 0.3}}, {{0.3, 0.3}}};
  rod.springs = {{0, 1, 0.1, 1e3, 0.1}};
  BodyOptions s;
  s.steps = 400;
  auto model = assemble(rod, 1, s);
  control::ControllerLayout layout;
  layout.nodes = 2;
  layout.strength = {0.0};
  control::SineBank bank(layout);
  Creature creature(model, bank);
  TaskLoss loss(creature, Task::kWalkHead, 0);
  double lowest = 1.0;
  RolloutOptions record;
  record.observer = [&](int, std::span<const double> st) { lowest = std::min({lowest, st[1], st[3]}); };
  Rollout rollout(creature, loss, 400, record);
  rollout.loss();
  const auto st = rollout.final_state();
  EXPECT_NEAR(st[1], 0.1, 1e-15);
  EXPECT_NEAR(st[3], 0.1, 1e-15);
  EXPECT_GE(lowest, 0.1 - 1e-15);
  for (int k = 4; k < 8; ++k) EXPECT_EQ(st[static_cast<std::size_t>(k)], 0.0);
}

// Final state and gradient of a batch, hashed.
testing::Hashes run_batch(int threads, const char* policy) {
  set_thread_count(threads);
  Rig rig(3, 70, 8, Task::kWalkHead, {}, policy);
  EXPECT_GT(rig.model.spring_count(), 8 * kBlockSize);  // several blocks on four threads
  const std::vector<double> x = rig.problem->initial();
  std::vector<double> g(x.size());
  rig.problem->value_and_gradient(x, g);
  set_thread_count(0);
  return {hash_doubles(rig.problem->rollout().final_state()), hash_doubles(g)};
}

TEST(CreatureDeterminism, SameBitsForEveryThreadCountAndCheckpointPolicy) {
  const testing::Hashes reference = run_batch(1, "all");
  for (int threads : {1, 2, 4})
    for (const char* policy : {"all", "every:3", "binomial:2"})
      EXPECT_EQ(run_batch(threads, policy), reference) << threads << " threads, " << policy;
}

// A creature in a batch of four computes the same bits as alone; the batch loss is the mean,
// so its gradient is a quarter of the lone one's (exact: a power of two).
TEST(CreatureDeterminism, BatchedCreatureGivesTheBitsOfALoneOne) {
  set_thread_count(2);
  Rig lone(1, 1, 40, Task::kWalkHead);
  Rig batch(1, 4, 40, Task::kWalkHead);
  std::vector<double> gl(lone.problem->dimension()), gb(batch.problem->dimension());
  lone.problem->value_and_gradient(lone.problem->initial(), gl);
  batch.problem->value_and_gradient(batch.problem->initial(), gb);
  set_thread_count(0);
  const auto sl = lone.problem->rollout().final_state(), sb = batch.problem->rollout().final_state();
  const std::size_t n = lone.plan.nodes.size();
  for (std::size_t c = 0; c < 4; ++c)
    for (std::size_t i = 0; i < 2 * n; ++i) {
      ASSERT_EQ(sb[c * 2 * n + i], sl[i]) << "creature " << c << " position " << i;
      ASSERT_EQ(sb[8 * n + c * 2 * n + i], sl[2 * n + i]) << "creature " << c << " velocity " << i;
    }
  // weights1 of creature 2 against the lone creature's.
  auto& nb = static_cast<control::NeuralController&>(*batch.controller);
  const std::size_t w1 = nb.weights1.values().size() / 4;
  for (std::size_t k = 0; k < w1; ++k) ASSERT_EQ(4.0 * gb[2 * w1 + k], gl[k]) << k;
}

}  // namespace
}  // namespace simgrad::creature
