// FEM-built creatures: the assembly of text rows into triangles and actuators; an actuated cell
// settles at its stretched rest shape (the active strain's closed form); finite differences of
// the actuated rollout (walk by head, sine bank and neural controllers, penalty ground); the
// hard ground runs; exact determinism across threads and checkpoint policies.
#include "sims/creature/fem_body.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/parallel.hpp"
#include "sims/creature/creature.hpp"
#include "sims/creature/losses.hpp"
#include "tests/sims/state_hash.hpp"
#include "tune/problem.hpp"

namespace simgrad::creature {
namespace {

const std::vector<std::string> kWalker = {"#HH#", "V..V"};

// A penalty ground keeps the rollout smooth for finite differences.
BodyOptions smooth_ground(int steps) {
  BodyOptions s;
  s.steps = steps;
  s.ground_model = softbody::ContactModel::kPenalty;
  s.ground_friction = 0.5;
  s.penalty = {2e3, 300.0, 0.05};
  return s;
}

// An FEM creature of the walker rows with a controller, a walking loss and a rollout problem.
struct FemRig {
  fem::FemModel<2> model;
  std::unique_ptr<control::Controller> controller;
  std::unique_ptr<Creature> creature;
  std::unique_ptr<TaskLoss> loss;
  std::unique_ptr<tune::RolloutProblem> problem;

  FemRig(const BodyOptions& settings, bool sines, const char* policy = "all") {
    const GridOptions grid;
    FemBodyOptions options;
    options.damping = 1e-4;
    const std::vector<double> strength = assemble_fem(kWalker, grid, options, settings, model);
    control::ControllerLayout layout;
    layout.nodes = static_cast<int>(model.node_count);
    layout.strength = strength;
    layout.dt = settings.dt;
    if (sines) {
      controller = std::make_unique<control::SineBank>(layout);
    } else {
      auto nn = std::make_unique<control::NeuralController>(layout);
      nn->initialise(5, static_cast<int>(model.element_count()));
      controller = std::move(nn);
    }
    creature = std::make_unique<Creature>(model, *controller);
    loss = std::make_unique<TaskLoss>(*creature, Task::kWalkHead, 0);
    RolloutOptions rollout;
    rollout.checkpoint = CheckpointPolicy::parse(policy);
    problem = std::make_unique<tune::RolloutProblem>(*creature, *loss, settings.steps, rollout, controller->bind(100.0));
  }
};

TEST(FemCreature, RowsBecomeTwoTrianglesPerSquareAndOneActuatorPerActuatedModule) {
  fem::FemModel<2> model;
  const GridOptions grid;
  const std::vector<double> strength = assemble_fem({".^R", "BHV"}, grid, FemBodyOptions{}, BodyOptions{}, model);
  const BodyPlan plan = parse_grid({".^R", "BHV"}, grid);
  EXPECT_EQ(model.node_count, static_cast<Index>(plan.nodes.size()));
  EXPECT_EQ(model.element_count(), 9);  // four squares and a foot
  ASSERT_EQ(strength.size(), 2u);
  EXPECT_EQ(model.actuator_count, 2);
  int h = 0, v = 0;
  for (Index e = 0; e < model.element_count(); ++e) {
    if (model.element_actuator[e] == 0) h += model.element_axis[e] == 0;
    if (model.element_actuator[e] == 1) v += model.element_axis[e] == 1;
  }
  EXPECT_EQ(h, 2);
  EXPECT_EQ(v, 2);
  // The rigid module is stiffer; an inner node would weigh 1; the block's cell weighs 4 corners' worth.
  EXPECT_DOUBLE_EQ(model.youngs.values()[1], 2.0 * model.youngs.values()[0]);
  EXPECT_NEAR(model.total_mass(), 3.25 + 4.0 * grid.block_mass, 1e-9);
  EXPECT_THROW(assemble_fem({"##"}, grid, FemBodyOptions{}, BodyOptions{}, model), GridError);
}

// A lone 'H' cell held at a relative stretch s, in zero gravity with drag, settles at its rest
// shape stretched by 1 + s along x (and unchanged along y): both triangles stress-free.
TEST(FemCreature, AnActuatedCellSettlesAtItsStretchedRestShape) {
  BodyOptions settings;
  settings.steps = 1500;
  settings.gravity = 0.0;
  settings.ground = false;
  fem::FemModel<2> model;
  const GridOptions grid;
  assemble_fem({"H"}, grid, FemBodyOptions{}, settings, model);
  const double signal = 0.12;
  std::fill(model.actuation.values().begin(), model.actuation.values().end(), signal);
  fem::Fem<2> fem(model);
  std::vector<double> a(static_cast<std::size_t>(fem.state_size())), b(a.size());
  fem.initial_state(a);
  for (int t = 0; t < settings.steps; ++t) {
    fem.step(t, a, b, {});
    a.swap(b);
  }
  // Nodes 0..3: (0,0), (0,1), (1,0), (1,1) in grid units. Lengths, not coordinates: a free body
  // may turn a little while it changes shape.
  auto distance = [&](int p, int q) { return std::hypot(a[2 * q] - a[2 * p], a[2 * q + 1] - a[2 * p + 1]); };
  const double width = distance(0, 2), height = distance(0, 1);
  EXPECT_NEAR(width / grid.spacing, 1.0 + signal, 1e-6);
  EXPECT_NEAR(height / grid.spacing, 1.0, 1e-6);
}

void check_gradient_of(FemRig& rig) {
  const std::vector<double> x = rig.problem->initial();
  std::vector<double> g(x.size());
  rig.problem->value_and_gradient(x, g);
  double largest = 0.0;
  for (double d : g) largest = std::max(largest, std::abs(d));
  EXPECT_GT(largest, 1e-4);  // the signals move the head
  GradCheckOptions options;
  options.random_directions = 4;
  options.rtol = 1e-4;
  options.atol = 1e-8;
  options.step = 1e-5;
  const GradCheckReport report =
      check_gradient([&](std::span<const double> p) { return rig.problem->value(p); }, x, g, options);
  EXPECT_TRUE(report.ok);
  for (const auto& c : report.checks)
    if (!c.ok) ADD_FAILURE() << c.label << " ad " << c.ad << " fd " << c.fd;
}

TEST(FemCreature, WalkGradientWithSinesMatchesFiniteDifferences) {
  FemRig rig(smooth_ground(60), true);
  check_gradient_of(rig);
}

TEST(FemCreature, WalkGradientWithTheNetworkMatchesFiniteDifferences) {
  FemRig rig(smooth_ground(40), false);
  check_gradient_of(rig);
}

// The time-of-impact ground holds the body up.
TEST(FemCreature, HardGroundHoldsTheBody) {
  BodyOptions settings;
  settings.steps = 200;
  FemRig rig(settings, true);
  rig.problem->value(rig.problem->initial());
  const auto state = rig.problem->rollout().final_state();
  for (Index i = 0; i < rig.model.node_count; ++i) EXPECT_GE(state[2 * i + 1], settings.ground_height - 1e-9);
}

TEST(FemCreature, SameBitsForEveryThreadCountAndCheckpointPolicy) {
  std::uint64_t reference = 0;
  for (const char* policy : {"all", "every:7", "binomial:3"})
    for (int threads : {1, 2, 4}) {
      set_thread_count(threads);
      FemRig rig(smooth_ground(30), false, policy);
      const std::vector<double> x = rig.problem->initial();
      std::vector<double> g(x.size());
      const double loss = rig.problem->value_and_gradient(x, g);
      g.push_back(loss);
      const std::uint64_t h = simgrad::testing::hash_doubles(g);
      if (reference == 0) reference = h;
      EXPECT_EQ(h, reference) << policy << " threads " << threads;
    }
  set_thread_count(1);
}

}  // namespace
}  // namespace simgrad::creature
