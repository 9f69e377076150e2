#include "scenario/rigid_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "report/rigid_frames.hpp"
#include "scenario/assembly_reader.hpp"
#include "scenario/run_export.hpp"
#include "scenario/tuned_parameter.hpp"
#include "sims/assembly/edits.hpp"
#include "sims/rigid/impulse_contact.hpp"
#include "sims/rigid/losses.hpp"
#include "sims/rigid/mjcf.hpp"
#include "sims/rigid/rigid_worlds.hpp"
#include "sims/rigid/tunables.hpp"

namespace simgrad::scenario {

namespace rg = simgrad::rigid;

namespace {

// The index of the body (or, with sites, the site) named by field `key` of `node`.
template <class Named>
int index_by_name(const ScenarioNode& node, std::string_view key, const std::vector<Named>& named, const char* what) {
  const std::string name = node.string(key);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (named[i].name == name) return static_cast<int>(i);
    if (!named[i].name.empty()) names.push_back(named[i].name);
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "\"" : ", \"") + n + "\"";
  node.fail(key, std::string("no ") + what + " \"" + name + "\" in the model; expected one of " + list);
}

// A 3-vector field.
rg::Vec3<double> vec3(const ScenarioNode& node, std::string_view key, rg::Vec3<double> fallback) {
  if (!node.has(key)) return fallback;
  const std::vector<double> v = node.numbers(key, 3);
  return {{v[0], v[1], v[2]}};
}

// Impulse contact runs with the Euler integrator on sphere-sphere and sphere-plane pairs only
// (impulse_contact.hpp); anything else is an error naming the pair.
void check_impulse_contact(const ScenarioNode& contact, const rg::RigidModel& m) {
  if (m.settings.integrator != rg::Integrator::kEuler)
    contact.fail("model", "impulse contact needs the Euler integrator");
  auto label = [&m](int g) {
    const std::string& name = m.geoms[static_cast<std::size_t>(g)].name;
    return name.empty() ? "number " + std::to_string(g) : "\"" + name + "\"";
  };
  for (const rg::GeomPair& pair : m.contact_pairs)
    if (!rg::impulse_supported(m.geoms[static_cast<std::size_t>(pair.a)].type, m.geoms[static_cast<std::size_t>(pair.b)].type))
      contact.fail("model", "impulse contact handles spheres against spheres and planes only; geoms " + label(pair.a) +
                                " and " + label(pair.b) + " may touch (exclude the pair, or set contype/conaffinity)");
}

// The "model" section: the MJCF file or the player-built machine (assembly_reader.hpp), and
// what a scenario may change about how it runs. An assembly read is kept in `machine`.
rg::RigidModel read_model(const ScenarioNode& node, std::optional<assembly::Assembly>& machine) {
  rg::RigidModel m;
  if (is_assembly(node)) {
    machine = read_assembly(node);
    try {
      m = assembly::build(*machine);
    } catch (const assembly::AssemblyError& e) {
      node.fail(node.has("plan") ? "plan" : "assembly", e.what());
    }
  } else {
    const std::filesystem::path file = node.existing_file("file");
    try {
      m = rg::load_mjcf(file, {.ignore_visual = node.boolean("ignore_visual", false)});
    } catch (const rg::MjcfError& e) {
      node.fail("file", e.what());
    }
  }
  rg::RigidSettings& s = m.settings;
  s.timestep = node.positive("timestep", s.timestep);
  if (node.has("integrator")) s.integrator = node.choice("integrator", {"Euler", "RK4"}) == "RK4" ? rg::Integrator::kRK4 : rg::Integrator::kEuler;
  s.substeps = static_cast<int>(node.integer("substeps", 1, 1000, 1));
  if (auto contact = node.optional_child("contact")) {
    s.contact.width = contact->non_negative("width", s.contact.width);
    s.contact.slip_speed = contact->positive("slip_speed", s.contact.slip_speed);
    if (!contact->boolean("enabled", true)) m.contact_pairs.clear();
    if (contact->choice("model", {"penalty", "impulse"}, "penalty") == "impulse") s.contact.model = rg::ContactModel::kImpulse;
    m.restitution.values()[0] = contact->in_range("restitution", 0.0, 1.0, m.restitution.values()[0]);
    if (s.contact.model == rg::ContactModel::kImpulse) check_impulse_contact(*contact, m);
  }
  if (!m.soft_nodes.empty() && (s.integrator != rg::Integrator::kEuler || s.contact.model != rg::ContactModel::kPenalty))
    node.fail(node.has("integrator") ? "integrator" : "contact",
              "soft parts move with the Euler integrator and penalty contact only");
  return m;
}

// The "start" section: a keyframe by name, or qpos and qvel given in full; the model's qpos0 at
// rest otherwise. Every world starts alike.
void read_start(const ScenarioNode& root, rg::RigidModel& m) {
  std::vector<double> qpos = m.qpos0, qvel(static_cast<std::size_t>(m.nv), 0.0);
  if (auto start = root.optional_child("start")) {
    if (start->has("keyframe")) {
      const rg::Keyframe& key = m.keyframes[static_cast<std::size_t>(index_by_name(*start, "keyframe", m.keyframes, "keyframe"))];
      qpos = key.qpos;
      qvel = key.qvel;
    }
    if (start->has("qpos")) qpos = start->numbers("qpos", static_cast<std::size_t>(m.nq));
    if (start->has("qvel")) qvel = start->numbers("qvel", static_cast<std::size_t>(m.nv));
  }
  for (int w = 0; w < m.worlds; ++w) {
    std::copy(qpos.begin(), qpos.end(), m.initial_qpos.values().begin() + static_cast<std::ptrdiff_t>(w) * m.nq);
    std::copy(qvel.begin(), qvel.end(), m.initial_qvel.values().begin() + static_cast<std::ptrdiff_t>(w) * m.nv);
  }
}

// The "loss" section: reach (a body or site), pose, progress, apex and effort terms.
rg::RigidLossSettings read_loss(const ScenarioNode& node, const rg::RigidModel& m) {
  rg::RigidLossSettings s;
  if (auto reach = node.optional_child("reach")) {
    if (reach->has("site")) {
      const rg::Site& site = m.sites[static_cast<std::size_t>(index_by_name(*reach, "site", m.sites, "site"))];
      s.reach_body = site.body;
      s.reach_point = site.pos;
    } else {
      s.reach_body = index_by_name(*reach, "body", m.bodies, "body");
      s.reach_point = vec3(*reach, "point", s.reach_point);
    }
    s.reach_target = vec3(*reach, "target", s.reach_target);
    if (!reach->has("target")) reach->fail("target", "expected the target position [x, y, z]");
    s.reach_weight = reach->positive("weight", 1.0);
  }
  if (auto pose = node.optional_child("pose")) {
    const auto nq = static_cast<std::size_t>(m.nq), nv = static_cast<std::size_t>(m.nv);
    if (pose->has("qpos")) {
      s.qpos_target = pose->numbers("qpos", nq);
      s.qpos_weight = pose->has("qpos_weight") ? pose->numbers("qpos_weight", nq) : std::vector<double>(nq, 1.0);
    }
    if (pose->has("qvel")) {
      s.qvel_target = pose->numbers("qvel", nv);
      s.qvel_weight = pose->has("qvel_weight") ? pose->numbers("qvel_weight", nv) : std::vector<double>(nv, 1.0);
    }
  }
  if (auto progress = node.optional_child("progress")) {
    s.progress_body = index_by_name(*progress, "body", m.bodies, "body");
    s.progress_direction = vec3(*progress, "direction", s.progress_direction);
    s.progress_weight = progress->positive("weight", 1.0);
  }
  if (auto apex = node.optional_child("apex")) {
    const int body = index_by_name(*apex, "body", m.bodies, "body");
    const rg::Body& b = m.bodies[static_cast<std::size_t>(body)];
    if (b.joint_count != 1 || m.joints[static_cast<std::size_t>(b.first_joint)].type != rg::JointType::kFree)
      apex->fail("body", "the apex is a free body's (a machine's root, a load); \"" + b.name + "\" has no free joint");
    if (!(norm(m.settings.gravity) > 0.0)) apex->fail("body", "an apex needs gravity: the model's is zero");
    s.apex_joint = b.first_joint;
    s.apex_weight = apex->positive("weight", 1.0);
  }
  s.effort_weight = node.non_negative("effort", 0.0);
  if (s.reach_body < 0 && s.qpos_target.empty() && s.qvel_target.empty() && s.progress_body < 0 && s.apex_joint < 0)
    node.fail("reach", "expected at least one of \"reach\", \"pose\", \"progress\" or \"apex\"");
  return s;
}

// What a network controller senses of a world: its root's height and orientation and every
// joint's coordinates (free and ball: the quaternion; hinge and slide: the angle or offset), then
// every velocity, times `velocity_scale`. The root's horizontal position is left out so that a
// gait learnt in one place works in another.
std::vector<control::SensedValue> sensed_state(const rg::RigidModel& m, double velocity_scale) {
  std::vector<control::SensedValue> sensed;
  for (const rg::Joint& j : m.joints) {
    const int first = j.type == rg::JointType::kFree ? 2 : 0;
    for (int k = first; k < rg::position_count(j.type); ++k) sensed.push_back({j.qpos_address + k, 1.0});
  }
  for (int d = 0; d < m.nv; ++d) sensed.push_back({m.nq + d, velocity_scale});
  return sensed;
}

class RigidScenario final : public Scenario {
 public:
  RigidScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    model_ = read_model(root.child("model"), machine_);
    steps = static_cast<int>(root.integer("steps", 1, 10000000));
    model_.resize(static_cast<int>(root.integer("worlds", 1, 100000, 1)), steps);
    read_start(root, model_);
    start_given_ = root.has("start");
    std::fill(model_.controls.values().begin(), model_.controls.values().end(), root.number("control", 0.0));
    view_ = root.choice("view", {"side", "top"}, "side") == "top" ? report::RigidView::kTop : report::RigidView::kSide;
    system_ = std::make_unique<rg::RigidWorlds>(model_);
    loss_ = std::make_unique<rg::RigidLoss>(model_, read_loss(root.child("loss"), model_));
    if (!root.has("controller")) {
      problem_ = read_tuned_rollout(root, overrides, rg::rigid_tunables(), model_, *system_, *loss_, steps, tune);
      check_soft_start(root);
      return;
    }
    // A controller's parameters are tuned, with any rows of the table the scenario adds.
    const double bound = read_controller(root.child("controller"));
    const ScenarioNode tune_node = root.child("tune");
    tune = read_tune_options(tune_node);
    std::vector<tune::BoundParameter> bound_parameters = controller_->bind(bound);
    if (tune_node.has("parameters"))
      for (const ScenarioNode& p : tune_node.array("parameters")) {
        if (p.as_object().string("name") == "controls") p.fail("name", "the controller gives the controls; tune its parameters instead");
        bound_parameters.push_back(read_tuned_parameter(p.as_object(), rg::rigid_tunables(), model_));
      }
    problem_ = std::make_unique<tune::RolloutProblem>(*system_, *loss_, steps, read_rollout_options(root, overrides, steps),
                                                      std::move(bound_parameters));
    check_soft_start(root);
  }

  // A machine with soft parts cannot have its start tuned: its nodes start where its bodies put
  // them, a dependence the gradient does not carry (RigidWorlds refuses it mid-run otherwise).
  void check_soft_start(const ScenarioNode& root) const {
    if (!model_.soft_nodes.empty() && (model_.initial_qpos.differentiable() || model_.initial_qvel.differentiable()))
      root.child("tune").fail("parameters", "the start of a machine with soft parts cannot be tuned yet");
  }

  std::string simulator() const override { return "rigid"; }
  tune::RolloutProblem& problem() override { return *problem_; }

  // The loss of a copy of the model at x with the hard contact and limits (width 0).
  double hard_loss(std::span<const double> x) override {
    problem_->assign(x);
    rg::RigidModel twin = model_.hard_twin();
    rg::RigidWorlds system(twin);
    system.set_controller(controller_.get());
    rg::RigidLoss loss(twin, loss_->settings());
    loss.set_controller(controller_.get());
    return problem_->twin_value(system, loss);
  }

  nlohmann::json summary() override { return report::rigid_summary(*system_, *loss_, problem_->rollout().final_state()); }

  // An assembly's hints: for each part, the edit among moving its mount `step` along each axis
  // and scaling it by 1 +- 20% that most lowers the loss with the controller at x, every edit
  // re-rated by a rollout of the rebuilt machine (the geometry is compiled, not on the tape, so
  // the search is over candidates rather than along a gradient), then the best re-rated on the
  // hard model too. Parts whose every edit raises the loss give no hint.
  bool gives_hints() const override { return machine_.has_value(); }
  nlohmann::json explain(std::span<const double> x, const ExplainRequest& request) override {
    if (!machine_) return Scenario::explain(x, request);
    const double step = request.joint_step > 0.0 ? request.joint_step : 0.02;
    const std::size_t wanted = request.hints > 0 ? static_cast<std::size_t>(request.hints) : 5;
    problem_->assign(x);
    const double rating = rate(*machine_, false), hard_rating = rate(*machine_, true);
    nlohmann::json hints = nlohmann::json::array();
    for (const assembly::AssemblyEdit& edit : assembly::best_edits(*machine_, step, [&](const assembly::Assembly& edited) {
           return rate(edited, false) - rating;
         })) {
      if (hints.size() == wanted) break;
      const double hard_change = rate(edit.edited, true) - hard_rating;
      char text[96];
      std::snprintf(text, sizeof text, ": loss %+.3g (hard model %+.3g)", edit.change, hard_change);
      hints.push_back({{"text", edit.text + text},
                       {"action", edit.action}, {"part", edit.part}, {"step", edit.step},
                       {"rerated_change", edit.change}, {"hard_rerated_change", hard_change}});
    }
    return {{"rating", rating}, {"hard_rating", hard_rating}, {"hints", hints}};
  }

  // World 0's bodies as closed triangle meshes, posed every few steps (run_export.hpp).
  std::optional<report::Animation> animation(std::span<const double> x) override {
    report::Animation out;
    std::vector<double> points;
    record_frames(*this, x, kExportFrames, [&](int t, std::span<const double> state) {
      points.clear();
      report::rigid_surface(model_, system_->tree(), state, points, out.times.empty() ? &out.triangles : nullptr);
      out.point_count = static_cast<Index>(points.size() / 3);
      out.add_frame(t * model_.settings.timestep, points);
    });
    return out;
  }

  // The bodies' outlines every few steps and the energy (report/rigid_frames.hpp).
  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    return report::rigid_frames(*system_, *loss_, steps, view_);
  }

 private:
  std::optional<assembly::Assembly> machine_;  // the player-built machine the model compiles, if any
  bool start_given_ = false;                   // the scenario's "start" sets the positions
  rg::RigidModel model_;
  std::unique_ptr<control::Controller> controller_;  // null: the controls are tuned directly
  std::unique_ptr<rg::RigidWorlds> system_;
  std::unique_ptr<rg::RigidLoss> loss_;
  // The "controller" section: a sine bank or a network per world over the actuators, its signal
  // strength the larger end of each actuator's control range (1 for an unlimited one). The
  // network senses the joints' positions and velocities (sensed_state). Returns the bound on
  // its parameters.
  double read_controller(const ScenarioNode& node) {
    const std::string type = node.choice("type", {"sine_bank", "network"});
    if (model_.nu() == 0) node.fail("type", "the model has no actuators for a controller to drive");
    control::ControllerLayout layout;
    layout.creatures = model_.worlds;
    layout.dt = model_.settings.timestep;
    layout.omega = node.positive("omega", layout.omega);
    for (const rg::Actuator& a : model_.actuators)
      layout.strength.push_back(a.ctrl_limited ? std::max(std::abs(a.ctrl_range[0]), std::abs(a.ctrl_range[1])) : 1.0);
    if (type == "network") {
      layout.sensed = sensed_state(model_, node.positive("velocity_scale", 0.1));
      layout.state_stride = model_.state_size();
      control::NeuralShape shape;
      shape.hidden = static_cast<int>(node.integer("hidden", 1, 4096, shape.hidden));
      auto network = std::make_unique<control::NeuralController>(layout, shape);
      network->initialise(static_cast<std::uint64_t>(node.integer("seed", 0, 1LL << 53, 0)), model_.nu());
      controller_ = std::move(network);
    } else {
      auto bank = std::make_unique<control::SineBank>(layout);
      if (node.has("warm_start")) warm_start(node, *bank);
      controller_ = std::move(bank);
    }
    system_->set_controller(controller_.get());
    loss_->set_controller(controller_.get());
    return node.positive("bound", 10.0);
  }

  // The loss of `machine` (an edit of this scenario's) with the controller and rollout as they
  // are, on the relaxed or the hard model. The model's settings, contact pairs and the start's
  // velocities carry over; the start's positions too unless the machine stands where its
  // parts put it.
  double rate(const assembly::Assembly& machine, bool hard) {
    rg::RigidModel edited = assembly::build(machine);
    edited.settings = model_.settings;
    edited.contact_pairs = model_.contact_pairs;
    edited.resize(model_.worlds, model_.steps);
    edited.initial_qvel.assign(model_.initial_qvel.values(), false);
    if (start_given_) edited.initial_qpos.assign(model_.initial_qpos.values(), false);
    if (hard) edited = edited.hard_twin();
    rg::RigidWorlds system(edited);
    system.set_controller(controller_.get());
    rg::RigidLoss loss(edited, loss_->settings());
    loss.set_controller(controller_.get());
    return problem_->twin_value(system, loss);
  }

  // The "warm_start" field: an earlier tuning run's result.json, whose sine bank (its world 0) is mapped
  // onto every world of this machine's actuators by name (after a player's edit: a leg added, a motor moved); an
  // actuator the earlier machine lacked keeps the fresh bank's values.
  void warm_start(const ScenarioNode& node, control::SineBank& bank) {
    const std::filesystem::path file = node.existing_file("warm_start");
    nlohmann::json result;
    try {
      std::ifstream in(file);
      result = nlohmann::json::parse(in);
      const nlohmann::json& names = result.at("summary").at("actuator_names");
      const nlohmann::json& tuned = result.at("parameters");
      const std::size_t before = names.size();
      for (const auto& [key, values] : tuned.items())
        if (key != "amplitude" && key != "phase" && key != "bias")
          node.fail("warm_start", file.string() + ": parameter \"" + key + "\" is not a sine bank's; warm starts map sine banks only");
      int mapped = 0;
      for (int a = 0; a < model_.nu(); ++a)
        for (std::size_t b = 0; b < before; ++b) {
          if (names[b].get<std::string>() != model_.actuators[static_cast<std::size_t>(a)].name) continue;
          for (auto [key, array] : {std::pair{"amplitude", &bank.amplitude}, {"phase", &bank.phase}, {"bias", &bank.bias}})
            if (tuned.contains(key))
              for (int w = 0; w < model_.worlds; ++w)
                array->values()[static_cast<std::size_t>(w * model_.nu() + a)] = tuned.at(key).at(b).get<double>();
          ++mapped;
        }
      if (mapped == 0) node.fail("warm_start", file.string() + ": no actuator of this machine is named as one of the earlier run's");
    } catch (const nlohmann::json::exception& e) {
      node.fail("warm_start", file.string() + ": not a tuning result with a rigid machine's summary (" + e.what() + ")");
    }
  }

  std::unique_ptr<tune::RolloutProblem> problem_;
  report::RigidView view_ = report::RigidView::kSide;
};

}  // namespace

std::unique_ptr<Scenario> load_rigid_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  return std::make_unique<RigidScenario>(root, overrides);
}

SimulatorInfo rigid_info() {
  SimulatorInfo info;
  info.name = "rigid";
  info.description = "rigid and articulated bodies from MJCF models or player-built assemblies of parts, soft parts included "
                     "(hinge, slide, ball and free joints, motors and servos, "
                     "penalty or impulse contact with friction, fluid drag), checked against MuJoCo; controls, masses, joint and "
                     "actuator constants, friction, restitution and the start tuned for reach, pose or progress targets";
  info.tunables = tune::tunable_infos(rg::rigid_tunables());
  info.load = load_rigid_scenario;
  return info;
}

}  // namespace simgrad::scenario
