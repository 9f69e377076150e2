#include "scenario/creature_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/creature_frames.hpp"
#include "scenario/run_export.hpp"
#include "sims/creature/body_plan.hpp"
#include "sims/creature/creature.hpp"
#include "sims/creature/fem_body.hpp"
#include "sims/creature/losses.hpp"
#include "sims/creature/tunables.hpp"

namespace simgrad::scenario {

namespace cr = simgrad::creature;
namespace sb = simgrad::softbody;

namespace {

// A 2-vector field, or the fallback.
Vec<double, 2> pair_of(const ScenarioNode& node, std::string_view key, Vec<double, 2> fallback) {
  if (!node.has(key)) return fallback;
  const std::vector<double> v = node.numbers(key, 2);
  return {{v[0], v[1]}};
}

// The grid settings of a text-row body.
cr::GridOptions read_grid_options(const ScenarioNode& body) {
  cr::GridOptions options;
  options.spacing = body.positive("spacing", options.spacing);
  options.origin = pair_of(body, "origin", options.origin);
  options.stiffness = body.positive("stiffness", options.stiffness);
  options.stiff_factor = body.positive("stiff_factor", options.stiff_factor);
  options.actuation = body.in_range("actuation", -0.9, 0.9, options.actuation);
  options.block_mass = body.positive("block_mass", options.block_mass);
  return options;
}

// The text rows of a body.
std::vector<std::string> read_rows(const ScenarioNode& body) {
  std::vector<std::string> rows;
  for (const ScenarioNode& r : body.array("rows")) rows.push_back(r.as_string());
  return rows;
}

// Runs `parse` on a text-row body, turning a GridError into a scenario error at its row.
template <class Parse>
auto parse_rows(const ScenarioNode& body, const Parse& parse) {
  try {
    return parse();
  } catch (const cr::GridError& e) {
    const std::vector<ScenarioNode> row_nodes = body.array("rows");
    if (e.row > 0)
      row_nodes[static_cast<std::size_t>(e.row - 1)].fail_expected(std::string(e.what()) + " at column " +
                                                                   std::to_string(e.column));
    body.fail("rows", e.what());
  }
}

// The body: text rows of modules, or explicit nodes and springs [a, b, length, stiffness,
// actuation] as in DiffTaichi's robot configuration.
cr::BodyPlan read_plan(const ScenarioNode& body) {
  cr::BodyPlan plan;
  if (body.has("rows")) {
    plan = parse_rows(body, [&] { return cr::parse_grid(read_rows(body), read_grid_options(body)); });
  } else {
    const std::vector<ScenarioNode> nodes = body.array("nodes");
    if (nodes.empty()) body.fail("nodes", "expected at least one node");
    for (const ScenarioNode& n : nodes) {
      const std::vector<double> p = n.as_numbers(2);
      plan.nodes.push_back({{p[0], p[1]}});
    }
    const std::int64_t last = static_cast<std::int64_t>(nodes.size()) - 1;
    for (const ScenarioNode& s : body.array("springs")) {
      const std::vector<double> v = s.as_numbers(5);
      cr::PlanSpring spring;
      for (int k = 0; k < 2; ++k) {
        const double end = v[static_cast<std::size_t>(k)];
        if (end != std::floor(end) || end < 0 || end > static_cast<double>(last))
          s.fail_expected("[a, b, length, stiffness, actuation] with a and b node numbers in [0, " + std::to_string(last) + "]");
      }
      spring.a = static_cast<std::int32_t>(v[0]);
      spring.b = static_cast<std::int32_t>(v[1]);
      spring.length = v[2];
      spring.stiffness = v[3];
      spring.actuation = v[4];
      if (spring.a == spring.b) s.fail_expected("two different nodes");
      if (!(spring.length > 0.0 && spring.stiffness > 0.0)) s.fail_expected("a length and a stiffness > 0");
      if (!(std::abs(spring.actuation) < 1.0)) s.fail_expected("an actuation strength in (-1, 1)");
      plan.springs.push_back(spring);
    }
    if (body.has("mass")) {
      plan.mass = body.numbers("mass", plan.nodes.size());
      for (double m : plan.mass)
        if (!(m > 0.0)) body.fail("mass", "expected masses > 0");
    }
    if (body.has("block"))
      for (std::int64_t b : body.integers("block", 0, last)) plan.block.push_back(static_cast<std::int32_t>(b));
  }
  plan.head = static_cast<std::int32_t>(body.integer("head", 0, static_cast<std::int64_t>(plan.nodes.size()) - 1, 0));
  if (plan.actuated().empty()) body.fail(body.has("rows") ? "rows" : "springs", "expected at least one actuated spring");
  return plan;
}

class CreatureScenario final : public Scenario {
 public:
  CreatureScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    cr::BodyOptions s;
    steps = static_cast<int>(root.integer("steps", 1, 10000000, s.steps));
    s.steps = steps;
    s.dt = root.positive("dt", s.dt);
    s.gravity = root.number("gravity", s.gravity);
    s.drag = root.non_negative("drag", s.drag);
    if (auto ground = root.optional_child("ground")) {
      s.ground_height = ground->number("height", s.ground_height);
      s.ground_friction = ground->non_negative("friction", s.ground_friction);
      const std::string model = ground->choice("model", {"time_of_impact", "penalty", "none"}, "time_of_impact");
      s.ground = model != "none";
      s.ground_model = model == "penalty" ? sb::ContactModel::kPenalty : sb::ContactModel::kImpactStop;
      s.penalty.stiffness = ground->positive("stiffness", s.penalty.stiffness);
      s.penalty.sharpness = ground->positive("sharpness", s.penalty.sharpness);
    }
    const ScenarioNode body = root.child("body");
    plan_ = read_plan(body);
    control::ControllerLayout layout;
    layout.nodes = static_cast<int>(plan_.nodes.size());
    if (auto fem = body.optional_child("fem")) {
      // Triangles instead of springs (sims/creature/fem_body.hpp).
      if (!body.has("rows")) body.fail("fem", "an FEM body is built from text rows");
      cr::FemBodyOptions options;
      options.youngs_modulus = fem->positive("youngs_modulus", options.youngs_modulus);
      options.poisson_ratio = fem->in_range("poisson_ratio", 0.0, 0.49, options.poisson_ratio);
      options.damping = fem->non_negative("damping", options.damping);
      options.material = fem->choice("material", {"neo_hookean", "corotated"}, "neo_hookean") == "corotated"
                             ? fem::MaterialModel::kCorotated
                             : fem::MaterialModel::kNeoHookean;
      fem_ = std::make_unique<fem::FemModel<2>>();
      layout.strength = parse_rows(body, [&] {
        return cr::assemble_fem(read_rows(body), read_grid_options(body), options, s, *fem_);
      });
    } else {
      model_ = cr::assemble(plan_, 1, s);
      for (std::int32_t e : plan_.actuated()) layout.strength.push_back(plan_.springs[static_cast<std::size_t>(e)].actuation);
    }
    layout.dt = s.dt;
    const ScenarioNode c = root.child("controller");
    layout.omega = c.positive("omega", layout.omega);
    const std::string type = c.choice("type", {"neural", "sines"});
    const double bound = c.positive("bound", 10.0);
    if (type == "neural") {
      control::NeuralShape shape;
      shape.sine_inputs = static_cast<int>(c.integer("sine_inputs", 1, 1000, shape.sine_inputs));
      shape.hidden = static_cast<int>(c.integer("hidden", 1, 10000, shape.hidden));
      shape.goal = pair_of(c, "goal", shape.goal);
      auto nn = std::make_unique<control::NeuralController>(layout, shape);
      nn->initialise(static_cast<std::uint64_t>(c.integer("seed", 0, 1LL << 53, 0)), static_cast<int>(plan_.springs.size()));
      controller_ = std::move(nn);
    } else {
      controller_ = std::make_unique<control::SineBank>(layout);
    }

    const ScenarioNode task = root.child("task");
    const std::string kind = task.choice("type", {"walk", "jump", "reach", "swim", "carry"});
    cr::Task t = kind == "swim" ? cr::Task::kWalkCentre : cr::Task::kWalkHead;
    if (kind == "carry") t = cr::Task::kCarry;
    if (kind == "carry" && plan_.block.empty())
      task.fail("type", "a carry task needs a block: a 'B' module in the rows, or \"block\" nodes");
    if (kind == "walk") t = task.choice("measure", {"head", "centre"}, "head") == "head" ? cr::Task::kWalkHead : cr::Task::kWalkCentre;
    if (kind == "jump") t = cr::Task::kJump;
    if (kind == "reach") t = cr::Task::kReach;
    const double temperature = task.non_negative("temperature", 0.01);
    target_ = kind == "reach" ? pair_of(task, "target", Vec<double, 2>::zero()) : Vec<double, 2>::zero();
    if (kind == "reach" && !task.has("target")) task.fail("target", "a reach task needs a target [x, y]");
    creature_ = fem_ ? std::make_unique<cr::Creature>(*fem_, *controller_, temperature)
                     : std::make_unique<cr::Creature>(model_, *controller_, temperature);
    if (auto water = root.optional_child("water")) {
      if (fem_) water->fail("water acts on mass-spring bodies only (remove body.fem)");
      cr::WaterSettings w;
      w.normal_drag = water->non_negative("normal_drag");
      w.tangential_drag = water->non_negative("tangential_drag", 0.0);
      creature_->set_water(w);
    } else if (kind == "swim") {
      task.fail("type", "a swim task needs a \"water\" section");
    }
    loss_ = std::make_unique<cr::TaskLoss>(*creature_, t, plan_.head, target_, plan_.block);

    tune = read_tune_options(root.child("tune"));
    const RolloutOptions options = read_rollout_options(root, overrides, steps);
    problem_ = std::make_unique<tune::RolloutProblem>(*creature_, *loss_, steps, options, controller_->bind(bound));
  }

  std::string simulator() const override { return "creature"; }
  tune::RolloutProblem& problem() override { return *problem_; }

  // The loss at x on the hard model: the time-of-impact ground, where a landing node stops (a
  // penalty ground is replaced by it), and the hard maximum for the jump's peak; a copy of the
  // body and a creature and task of their own, so the tuned body is left as it is.
  double hard_loss(std::span<const double> x) override {
    problem_->assign(x);
    sb::MassSpringModel<2> springs;
    fem::FemModel<2> elements;
    std::unique_ptr<cr::Creature> twin;
    if (fem_) {
      elements = cr::hard_ground_twin(*fem_);
      twin = creature_->hard_twin(elements);
    } else {
      springs = cr::hard_ground_twin(model_);
      twin = creature_->hard_twin(springs);
    }
    cr::TaskLoss loss(*twin, loss_->task(), plan_.head, target_, plan_.block);
    return problem_->twin_value(*twin, loss);
  }

  nlohmann::json summary() override { return report::creature_summary(body(), *loss_, problem_->rollout().final_state()); }

  // Nodes and edges every few steps coloured by strain, the ground, and the head's x over time
  // (report/creature_frames.hpp).
  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    return report::creature_frames(body(), *creature_, *loss_, steps);
  }

  // The body's nodes joined by its triangles (FEM modules) or springs (run_export.hpp).
  std::optional<report::Animation> animation(std::span<const double> x) override {
    report::Animation out;
    out.dimension = 2;
    double dt = model_.settings.dt;
    if (fem_) {
      out.point_count = fem_->node_count;
      dt = fem_->settings.dt;
      for (Index e = 0; e < fem_->element_count(); ++e)
        out.triangles.push_back({fem_->elements.node(e, 0), fem_->elements.node(e, 1), fem_->elements.node(e, 2)});
    } else {
      out.point_count = model_.node_count;
      for (Index e = 0; e < model_.spring_count(); ++e) out.lines.push_back({model_.springs.node(e, 0), model_.springs.node(e, 1)});
    }
    record_frames(*this, x, kExportFrames, [&](int t, std::span<const double> state) { out.add_frame(t * dt, state); });
    return out;
  }

 private:
  report::CreatureBody body() const { return {plan_, model_, fem_.get()}; }

  cr::BodyPlan plan_;
  sb::MassSpringModel<2> model_;
  std::unique_ptr<fem::FemModel<2>> fem_;  // an FEM body instead (body.fem)
  std::unique_ptr<control::Controller> controller_;
  std::unique_ptr<cr::Creature> creature_;
  Vec<double, 2> target_;  // of a reach task
  std::unique_ptr<cr::TaskLoss> loss_;
  std::unique_ptr<tune::RolloutProblem> problem_;
};

}  // namespace

std::unique_ptr<Scenario> load_creature_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  return std::make_unique<CreatureScenario>(root, overrides);
}

SimulatorInfo creature_info() {
  SimulatorInfo info;
  info.name = "creature";
  info.description = "creatures built from modules (text rows of . # R V H ^ B, or explicit nodes and springs) "
                     "on the mass-spring body or, from text rows, an FEM body of actuated triangles (body.fem), driven by a sine bank or DiffTaichi's neural controller, "
                     "tuned to walk, jump, reach, carry a block (B modules) or swim (water drag on every spring); time-of-impact or penalty ground";
  info.tunables = simgrad::creature::controller_tunables();
  info.table_parameters = false;
  info.load = load_creature_scenario;
  return info;
}

}  // namespace simgrad::scenario
