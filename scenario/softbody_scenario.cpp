#include "scenario/softbody_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "report/softbody_frames.hpp"
#include "scenario/run_export.hpp"
#include "scenario/tuned_parameter.hpp"
#include "sims/softbody/losses.hpp"
#include "sims/softbody/marker_reference.hpp"
#include "sims/softbody/mass_spring.hpp"
#include "sims/softbody/mass_spring_part.hpp"
#include "sims/softbody/tunables.hpp"

namespace simgrad::scenario {

namespace sb = simgrad::softbody;

namespace {

double default_of(std::string_view name) { return tunable_default(sb::mass_spring_tunables<2>(), name); }

template <int D>
Vec<double, D> uniform_vec(double value) {
  Vec<double, D> v;
  for (int k = 0; k < D; ++k) v[k] = value;
  return v;
}

// The body: explicit nodes and springs, or a generated lattice.
template <int D>
sb::MassSpringModel<D> read_body(const ScenarioNode& body, int steps) {
  if (body.has("lattice")) {
    const ScenarioNode lattice = body.child("lattice");
    const std::vector<std::int64_t> size = lattice.integers("size", 1, 1000, D);
    int n[3] = {1, 1, 1};
    for (int k = 0; k < D; ++k) n[k] = static_cast<int>(size[static_cast<std::size_t>(k)]);
    const double spacing = lattice.positive("spacing");
    const Vec<double, D> origin = vec_of<D>(lattice, "origin", Vec<double, D>::zero());
    if constexpr (D == 2) return sb::make_lattice_2d(n[0], n[1], spacing, origin, steps);
    else return sb::make_jelly_block(n[0], n[1], n[2], spacing, origin, steps);
  }
  std::vector<ScenarioNode> nodes = body.array("nodes");
  std::vector<ScenarioNode> springs = body.array("springs");
  if (nodes.empty()) body.fail("nodes", "expected at least one node");
  std::vector<std::int32_t> ends;
  const std::int64_t last_node = static_cast<std::int64_t>(nodes.size()) - 1;
  for (const ScenarioNode& s : springs) {
    const std::vector<std::int64_t> ab = s.as_integers(0, last_node, 2);
    if (ab[0] == ab[1]) s.fail_expected("two different nodes");
    for (std::int64_t e : ab) ends.push_back(static_cast<std::int32_t>(e));
  }
  sb::MassSpringModel<D> m;
  m.build(static_cast<Index>(nodes.size()), std::move(ends), steps);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::vector<double> p = nodes[i].as_numbers(D);
    for (int k = 0; k < D; ++k) m.initial_position.values()[i * D + k] = p[static_cast<std::size_t>(k)];
  }
  // Rest lengths default to the initial lengths.
  for (Index e = 0; e < m.spring_count(); ++e) {
    double d2 = 0.0;
    for (int k = 0; k < D; ++k) {
      const double d = m.initial_position.values()[m.springs.node(e, 1) * D + k] -
                       m.initial_position.values()[m.springs.node(e, 0) * D + k];
      d2 += d * d;
    }
    m.rest_length.values()[e] = std::sqrt(d2);
  }
  return m;
}

template <int D>
class SoftbodyScenario final : public Scenario {
 public:
  SoftbodyScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    steps = static_cast<int>(root.integer("steps", 1, 100000000));
    model_ = read_body<D>(root.child("body"), steps);
    sb::MassSpringSettings& s = model_.settings;
    s.steps = steps;
    s.dt = root.positive("dt");
    s.drag = root.non_negative("drag", 0.0);
    s.length_epsilon = root.non_negative("length_epsilon", 0.0);
    read_penalty(root, s.penalty);
    const std::size_t springs = static_cast<std::size_t>(model_.spring_count());
    const std::size_t nodes = static_cast<std::size_t>(model_.node_count);
    auto copy_into = [](const std::vector<double>& v, Array<1>& a) { std::copy(v.begin(), v.end(), a.values().begin()); };
    copy_into(per_entry(root, "stiffness", springs, default_of("stiffness")), model_.stiffness);
    copy_into(per_entry(root, "damping", springs, default_of("damping")), model_.damping);
    if (root.has("rest_length")) copy_into(per_entry(root, "rest_length", springs, 0.0), model_.rest_length);
    const std::vector<double> mass = per_entry(root, "mass", nodes, 1.0);
    for (std::size_t i = 0; i < nodes; ++i) {
      if (!(mass[i] > 0.0)) root.fail("mass", "expected masses > 0");
      model_.inverse_mass.values()[i] = 1.0 / mass[i];
    }
    for (const ScenarioNode& p : root.optional_array("pinned"))
      model_.inverse_mass.values()[static_cast<std::size_t>(p.as_integer(0, static_cast<std::int64_t>(nodes) - 1))] = 0.0;
    const Vec<double, D> g = vec_of<D>(root, "gravity", uniform_vec<D>(default_of("gravity")));
    for (int k = 0; k < D; ++k) model_.gravity.values()[k] = g[k];
    const Vec<double, D> v0 = vec_of<D>(root, "initial_velocity", uniform_vec<D>(default_of("initial_velocity")));
    for (std::size_t i = 0; i < nodes; ++i)
      for (int k = 0; k < D; ++k) model_.initial_velocity.values()[i * D + k] = v0[k];
    for (const ScenarioNode& p : root.optional_array("planes")) model_.planes.push_back(read_contact_plane<D>(p.as_object()));

    if (overrides.split) split_model(root.child("loss"), *overrides.split);
    else system_ = std::make_unique<sb::MassSpring<D>>(model_);
    read_loss(root.child("loss"));
    problem_ = read_tuned_rollout(root, overrides, sb::mass_spring_tunables<D>(), model_, *system_, *loss_, steps, tune);
  }

  std::string simulator() const override { return "softbody"; }
  tune::RolloutProblem& problem() override { return *problem_; }

  const Subdomain* subdomain() const override { return subdomain_.get(); }

  // The loss at x on the model's hard twin (the penalty contact hard), run by a system of its own.
  double hard_loss(std::span<const double> x) override {
    problem_->assign(x);
    sb::MassSpringModel<D> hard = model_.hard_twin();
    if (!subdomain_) {
      sb::MassSpring<D> system(hard);
      return problem_->twin_value(system, *loss_);
    }
    sb::MassSpringPart<D> part = sb::part_of(hard, part_.nodes, part_.ghosts);
    sb::MassSpring<D> system(part, *subdomain_, &hard);
    return problem_->twin_value(system, *loss_);
  }

  nlohmann::json summary() override { return report::mass_spring_summary(model_, *loss_, problem_->rollout().final_state()); }

  // Nodes and springs every few steps, springs coloured by strain (report/softbody_frames.hpp).
  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    return report::mass_spring_frames(*system_, *loss_, steps);
  }

  // The nodes joined by the springs (run_export.hpp).
  std::optional<report::Animation> animation(std::span<const double> x) override {
    report::Animation out;
    out.dimension = D;
    out.point_count = model_.node_count;
    for (Index e = 0; e < model_.spring_count(); ++e) out.lines.push_back({model_.springs.node(e, 0), model_.springs.node(e, 1)});
    record_frames(*this, x, kExportFrames, [&](int t, std::span<const double> state) { out.add_frame(t * model_.settings.dt, state); });
    return out;
  }

 private:
  // Split over processes: this process's part of the model (a slab of a lattice), holding also
  // the nodes the loss reads when it does not read every node, and the system that runs it,
  // reading its parameters from the whole model (which tuning writes) and handing back their
  // adjoints. Collective.
  void split_model(const ScenarioNode& loss, Splitter& split) {
    std::vector<std::int64_t> also;
    if (loss.has("nodes"))
      for (const std::int64_t n : loss.integers("nodes", 0, model_.node_count - 1)) also.push_back(n);
    if (loss.has("markers"))
      for (const std::int64_t n : loss.integers("markers", 0, model_.node_count - 1)) also.push_back(n);
    std::exception_ptr failed;
    try {
      part_ = sb::part_of(model_, partition_run(model_.node_count, split.size(), split.rank()), also);
    } catch (...) {
      failed = std::current_exception();
    }
    // Making the subdomain is collective: every process learns first whether any failed.
    if (split.any(failed != nullptr)) {
      if (failed) std::rethrow_exception(failed);
      throw AnotherProcessFailed();
    }
    subdomain_ = split.subdomain(model_.node_count, part_.ghosts);
    system_ = std::make_unique<sb::MassSpring<D>>(part_, *subdomain_, &model_);
  }

  // A whole model's node as the system numbers it (its part's number, when split).
  std::int32_t system_node(std::int64_t node) const {
    return static_cast<std::int32_t>(subdomain_ ? part_.local_node(node) : node);
  }
  // The number of nodes the system's state holds.
  Index system_nodes() const { return subdomain_ ? part_.model.node_count : model_.node_count; }

  void read_loss(const ScenarioNode& loss) {
    const std::string type = loss.choice("type", {"triangle_area", "trajectory_match"});
    if (type == "triangle_area") {
      if constexpr (D != 2) {
        loss.fail("type", "triangle_area needs \"dimension\": 2");
      } else {
        const std::vector<std::int64_t> n = loss.integers("nodes", 0, model_.node_count - 1, 3);
        const std::array<std::int32_t, 3> tri{system_node(n[0]), system_node(n[1]), system_node(n[2])};
        loss_ = std::make_unique<sb::TriangleAreaLoss>(*system_, tri, loss.positive("target"));
      }
      return;
    }
    // trajectory_match: markers, stride and a reference made with other values.
    // Every node by default; split, each process's own nodes, its part of the loss.
    std::vector<std::int32_t> markers;
    const bool every_node = !loss.has("markers");
    if (!every_node) {
      for (std::int64_t m : loss.integers("markers", 0, model_.node_count - 1)) markers.push_back(system_node(m));
    } else {
      const Index count = subdomain_ ? subdomain_->owned() : model_.node_count;
      for (Index i = 0; i < count; ++i) markers.push_back(static_cast<std::int32_t>(i));
    }
    const int stride = static_cast<int>(loss.integer("stride", 1, steps));
    const ScenarioNode reference = loss.child("reference");
    const ScenarioNode generate = reference.child("generate");
    const sb::MarkerNoise noise{reference.non_negative("noise", 0.0), 0.0,
                                static_cast<std::uint64_t>(reference.integer("seed", 0, 1LL << 53, 1))};
    // Simulated with the generating values ("stiffness", "damping": one for all springs).
    std::vector<sb::GeneratingValue> generating;
    for (auto [key, quantity] : {std::pair{"stiffness", &model_.stiffness}, std::pair{"damping", &model_.damping}})
      if (generate.has(key)) generating.push_back({quantity, generate.positive(key)});
    const bool split_loss = subdomain_ && every_node;
    const sb::MarkerRun run{split_loss ? subdomain_->first() : 0, model_.node_count};
    std::vector<double> frames = sb::simulate_marker_reference<D>(*system_, system_nodes(), markers, stride, steps,
                                                                  generating, noise, split_loss ? &run : nullptr);
    if (split_loss) loss_ = std::make_unique<sb::TrajectoryMatchLoss<D>>(*subdomain_, system_nodes(), stride, std::move(frames));
    else loss_ = std::make_unique<sb::TrajectoryMatchLoss<D>>(system_nodes(), markers, stride, std::move(frames));
  }

  sb::MassSpringModel<D> model_;          // the whole model: tuning writes its parameters here
  sb::MassSpringPart<D> part_;            // split: this process's part
  std::unique_ptr<Subdomain> subdomain_;  // split: the exchange with the other parts
  std::unique_ptr<sb::MassSpring<D>> system_;
  std::unique_ptr<TrajectoryLoss> loss_;
  std::unique_ptr<tune::RolloutProblem> problem_;
};

}  // namespace

std::vector<double> per_entry(const ScenarioNode& node, std::string_view key, std::size_t entries, double fallback) {
  if (!node.has(key)) return std::vector<double>(entries, fallback);
  const ScenarioNode value = node.member(key);
  if (value.json().is_number()) return std::vector<double>(entries, value.as_number());
  return node.numbers(key, entries);
}

void read_penalty(const ScenarioNode& root, sb::PenaltySettings& penalty) {
  if (auto p = root.optional_child("penalty")) {
    penalty.stiffness = p->positive("stiffness", penalty.stiffness);
    penalty.sharpness = p->non_negative("sharpness", penalty.sharpness);
    penalty.friction_speed = p->positive("friction_speed", penalty.friction_speed);
  }
}

template <int D>
sb::ContactPlane<D> read_contact_plane(const ScenarioNode& p) {
  sb::ContactPlane<D> plane;
  const std::vector<double> normal = p.numbers("normal", D);
  double n2 = 0.0;
  for (double c : normal) n2 += c * c;
  if (n2 == 0.0) p.fail("normal", "expected a non-zero vector");
  for (int k = 0; k < D; ++k) plane.normal[k] = normal[static_cast<std::size_t>(k)] / std::sqrt(n2);
  plane.offset = p.number("offset", 0.0);
  plane.friction = p.non_negative("friction", 0.0);
  plane.restitution = p.in_range("restitution", 0.0, 1.0, 0.0);
  const std::string model = p.choice("model", {"penalty", "time_of_impact", "projection"}, "penalty");
  plane.model = model == "penalty"          ? sb::ContactModel::kPenalty
                : model == "time_of_impact" ? sb::ContactModel::kTimeOfImpact
                                            : sb::ContactModel::kProjection;
  return plane;
}

template sb::ContactPlane<2> read_contact_plane<2>(const ScenarioNode&);
template sb::ContactPlane<3> read_contact_plane<3>(const ScenarioNode&);

std::unique_ptr<Scenario> load_softbody_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  const std::int64_t dimension = root.integer("dimension", 2, 3);
  if (dimension == 2) return std::make_unique<SoftbodyScenario<2>>(root, overrides);
  return std::make_unique<SoftbodyScenario<3>>(root, overrides);
}

SimulatorInfo softbody_info() {
  SimulatorInfo info;
  info.name = "softbody";
  info.description = "mass-spring soft bodies in 2D and 3D: springs with stiffness, damping, rest length and "
                     "actuation; gravity, drag, ground and walls (penalty, time-of-impact or projection contact)";
  info.tunables = tune::tunable_infos(sb::mass_spring_tunables<3>());
  info.load = load_softbody_scenario;
  return info;
}

}  // namespace simgrad::scenario
