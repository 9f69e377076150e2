#include "scenario/mpm_scenario.hpp"

#include <string>
#include <vector>

#include "report/mpm_frames.hpp"
#include "scenario/run_export.hpp"
#include "scenario/tuned_parameter.hpp"
#include "sims/mpm/losses.hpp"
#include "sims/mpm/mpm.hpp"
#include "sims/mpm/tunables.hpp"
#include "sims/softbody/losses.hpp"
#include "sims/softbody/marker_reference.hpp"

namespace simgrad::scenario {

namespace mp = simgrad::mpm;
namespace sb = simgrad::softbody;

namespace {

// A D-vector field (`fallback` when absent).
template <int D>
Vec<double, D> vec(const ScenarioNode& node, std::string_view key, Vec<double, D> fallback = Vec<double, D>::zero()) {
  if (!node.has(key)) return fallback;
  const std::vector<double> v = node.numbers(key, D);
  Vec<double, D> r;
  for (int d = 0; d < D; ++d) r[d] = v[static_cast<std::size_t>(d)];
  return r;
}

// A wall's kind and friction.
mp::Wall read_wall(const ScenarioNode& node, mp::Wall fallback) {
  const std::string kind = node.choice("kind", {"sticky", "slip", "separating"},
                                       fallback.kind == mp::WallKind::kSticky ? "sticky" : fallback.kind == mp::WallKind::kSlip ? "slip" : "separating");
  return {kind == "sticky" ? mp::WallKind::kSticky : kind == "slip" ? mp::WallKind::kSlip : mp::WallKind::kSeparating,
          node.non_negative("friction", fallback.friction)};
}

// The scenario key of a field MpmInputError names.
std::string key_of(const std::string& field) { return field == "position" ? "centre" : field; }

template <int D>
class MpmScenario final : public Scenario {
 public:
  MpmScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    steps = static_cast<int>(root.integer("steps", 1, 10000000));
    read_settings(root);
    const std::vector<ScenarioNode> bodies = root.array("bodies");
    if (bodies.empty()) root.fail("bodies", "expected at least one body");
    for (const ScenarioNode& b : bodies) read_body(b.as_object());
    model_.resize_controls(steps);
    try {
      system_ = std::make_unique<mp::Mpm<D>>(model_);
    } catch (const mp::MpmInputError& e) {
      if (e.particle() < 0) root.fail(e.field(), e.message());
      bodies[static_cast<std::size_t>(model_.body[static_cast<std::size_t>(e.particle())])].as_object().fail(
          key_of(e.field()), "particle " + std::to_string(e.particle()) + ": " + e.message());
    }
    if (auto c = root.optional_child("controller")) read_controller(*c);
    read_loss(root.child("loss"));
    const ScenarioNode tune_node = root.child("tune");
    tune = read_tune_options(tune_node);
    std::vector<tune::BoundParameter> bound;
    if (controller_) bound = controller_->bind(controller_bound_);
    for (const ScenarioNode& p : tune_node.optional_array("parameters")) {
      if (controller_ && p.as_object().string("name") == "controls") p.fail("name", "the controller gives the controls; tune its parameters instead");
      bound.push_back(read_tuned_parameter(p.as_object(), mp::mpm_tunables<D>(), model_));
    }
    if (bound.empty()) tune_node.fail("parameters", "expected at least one parameter to tune (or a controller)");
    problem_ = std::make_unique<tune::RolloutProblem>(*system_, *loss_, steps, read_rollout_options(root, overrides, steps), std::move(bound));
  }

  std::string simulator() const override { return "mpm"; }
  tune::RolloutProblem& problem() override { return *problem_; }

  // The loss of a copy of the model at x with hard walls and return mappings.
  double hard_loss(std::span<const double> x) override {
    problem_->assign(x);
    mp::MpmModel<D> twin = model_.hard_twin();
    mp::Mpm<D> system(twin);
    system.set_controller(controller_.get());
    return problem_->twin_value(system, *loss_);
  }

  nlohmann::json summary() override { return report::mpm_summary(*system_, problem_->rollout().final_state()); }

  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    return report::mpm_frames(*system_, *loss_, steps);
  }

  // The particles, as points (run_export.hpp).
  std::optional<report::Animation> animation(std::span<const double> x) override {
    report::Animation out;
    out.dimension = D;
    out.point_count = model_.particle_count;
    record_frames(*this, x, kExportFrames, [&](int t, std::span<const double> state) { out.add_frame(t * model_.settings.dt, state); });
    return out;
  }

 private:
  // The grid, time step, gravity, walls, colliders, actuation and relaxations.
  void read_settings(const ScenarioNode& root) {
    mp::MpmSettings<D>& s = model_.settings;
    const ScenarioNode grid = root.child("grid");
    const std::vector<std::int64_t> nodes = grid.integers("nodes", 9, 4096, D);
    for (int d = 0; d < D; ++d) s.nodes[d] = static_cast<int>(nodes[static_cast<std::size_t>(d)]);
    s.dx = grid.positive("dx", 1.0 / static_cast<double>(s.nodes[0]));
    s.bound = static_cast<int>(grid.integer("bound", 1, 64, 3));
    s.dt = root.positive("dt");
    s.cfl = root.positive("cfl", s.cfl);
    s.gravity = vec<D>(root, "gravity");
    s.actuation_strength = root.number("actuation_strength", s.actuation_strength);
    if (auto w = root.optional_child("walls")) {
      const mp::Wall all = read_wall(*w, {});
      for (mp::Wall& wall : s.walls) wall = all;
      if (auto floor = w->optional_child("floor")) s.walls[2 * (D - 1)] = read_wall(*floor, all);
    }
    for (const ScenarioNode& c : root.optional_array("colliders")) {
      const ScenarioNode o = c.as_object();
      mp::Collider<D> collider;
      collider.shape = o.choice("shape", {"box", "sphere"}) == "box" ? mp::ColliderShape::kBox : mp::ColliderShape::kSphere;
      collider.centre = vec<D>(o, "centre");
      if (collider.shape == mp::ColliderShape::kBox) collider.half_extent = vec<D>(o, "half_extent");
      else collider.radius = o.positive("radius");
      collider.wall = read_wall(o, {mp::WallKind::kSeparating, 0.0});
      s.colliders.push_back(collider);
    }
    if (auto relax = root.optional_child("relax")) {
      s.boundary_sharpness = relax->non_negative("boundary", 0.0);
      s.plastic_sharpness = relax->non_negative("plastic", 0.0);
    }
    if (auto snow = root.optional_child("snow")) {
      s.critical_compression = snow->in_range("critical_compression", 0.0, 1.0, s.critical_compression);
      s.critical_stretch = snow->in_range("critical_stretch", 0.0, 10.0, s.critical_stretch);
    }
  }

  // A body: a box or sphere of particles of one material, its constants and start.
  void read_body(const ScenarioNode& b) {
    mp::BodyOptions<D> o;
    o.shape = b.choice("shape", {"box", "sphere"}, "box") == "box" ? mp::ColliderShape::kBox : mp::ColliderShape::kSphere;
    o.centre = vec<D>(b, "centre");
    if (!b.has("centre")) b.fail("centre", "expected the body's centre");
    if (o.shape == mp::ColliderShape::kBox) o.half_extent = vec<D>(b, "half_extent");
    else o.radius = b.positive("radius");
    o.spacing = b.positive("spacing", 0.5 * model_.settings.dx);
    if (b.has("counts")) {
      const std::vector<std::int64_t> counts = b.integers("counts", 1, 1 << 20, D);
      for (int d = 0; d < D; ++d) o.counts[d] = static_cast<int>(counts[static_cast<std::size_t>(d)]);
    }
    if (b.has("volume")) o.volume = b.positive("volume");
    // A body starts inside the grid (particles outside would leave it at the first step) and
    // holds a number of particles a run can keep (a typo in a size would otherwise ask for
    // billions).
    const char* size_field = o.shape == mp::ColliderShape::kBox ? "half_extent" : "radius";
    double particles = 1.0;
    for (int d = 0; d < D; ++d) {
      const double extent = o.shape == mp::ColliderShape::kBox ? o.half_extent[d] : o.radius;
      const double grid_size = model_.settings.nodes[d] * model_.settings.dx;
      if (o.centre[d] - extent < 0.0 || o.centre[d] + extent > grid_size)
        b.fail(size_field, "the body reaches outside the grid (0 to " + std::to_string(grid_size) + " along axis " +
                               std::to_string(d) + ")");
      particles *= b.has("counts") ? o.counts[d] : 2.0 * extent / o.spacing;
    }
    if (particles > 1e7) b.fail(b.has("counts") ? "counts" : "spacing", "the body would hold more than 10,000,000 particles");
    const std::string material = b.choice("material", {"corotated", "neo_hookean", "sand", "snow", "liquid"}, "corotated");
    o.material = material == "corotated" ? mp::Material::kCorotated : material == "neo_hookean" ? mp::Material::kNeoHookean
                 : material == "sand"    ? mp::Material::kSand : material == "snow" ? mp::Material::kSnow : mp::Material::kLiquid;
    // Checked by the model, which names the field (a negative density, nu >= 0.5).
    o.youngs = b.number("youngs_modulus", o.youngs);
    o.poisson = b.number("poisson_ratio", o.poisson);
    o.density = b.number("density", o.density);
    o.friction_angle = b.number("friction_angle", o.friction_angle);
    o.hardening = b.non_negative("hardening", o.hardening);
    o.bulk_modulus = b.number("bulk_modulus", o.bulk_modulus);
    o.velocity = vec<D>(b, "velocity");
    o.actuator = static_cast<int>(b.integer("actuator", -1, 1024, -1));
    o.direction = vec<D>(b, "direction", o.direction);
    if (model_.add_body(o) == 0) b.fail("half_extent", "the body holds no particle");
    bodies_.push_back(b);
  }

  // The particles of the bodies listed in `key` (all when absent).
  std::vector<std::int32_t> particles_of(const ScenarioNode& node, std::string_view key) const {
    std::vector<std::int32_t> out;
    if (!node.has(key)) return out;
    const std::vector<int> picked = node.indices(key, static_cast<std::int64_t>(bodies_.size()));
    for (Index p = 0; p < model_.particle_count; ++p)
      for (int b : picked)
        if (model_.body[static_cast<std::size_t>(p)] == b) out.push_back(static_cast<std::int32_t>(p));
    return out;
  }

  // A sine bank over the actuators (DiffTaichi's diffmpm controller family): signals
  // tanh(bias + amplitude sin(omega t dt + phase)), its parameters tuned.
  void read_controller(const ScenarioNode& node) {
    node.choice("type", {"sine_bank"});
    if (model_.actuator_count == 0) node.fail("type", "no body has an actuator");
    control::ControllerLayout layout;
    layout.creatures = 1;
    layout.dt = model_.settings.dt;
    layout.omega = node.positive("omega", layout.omega);
    layout.strength.assign(static_cast<std::size_t>(model_.actuator_count), 1.0);
    controller_ = std::make_unique<control::SineBank>(layout);
    system_->set_controller(controller_.get());
    controller_bound_ = node.positive("bound", 10.0);
  }

  void read_loss(const ScenarioNode& node) {
    const std::string type = node.choice("type", {"progress", "target", "runout", "tracks"});
    if (type == "tracks") return read_tracks(node);
    mp::MpmLossSettings<D> s;
    s.particles = particles_of(node, "bodies");
    if (type == "progress") {
      s.direction = vec<D>(node, "direction", s.direction);
      s.progress_weight = node.positive("weight", 1.0);
    } else if (type == "target") {
      s.target = vec<D>(node, "target");
      if (!node.has("target")) node.fail("target", "expected the target position");
      s.target_weight = node.positive("weight", 1.0);
    } else {
      s.runout_axis = static_cast<int>(node.integer("axis", 0, D - 1, 0));
      s.runout_target = node.number("target");
      s.runout_temperature = node.non_negative("temperature", 0.0);
      s.runout_weight = node.positive("weight", 1.0);
    }
    loss_ = std::make_unique<mp::MpmLoss<D>>(model_.particle_count, s);
  }

  // Tracks of marker particles against a reference simulated with other values plus noise.
  void read_tracks(const ScenarioNode& node) {
    std::vector<std::int32_t> markers;
    const Index every = node.integer("every", 1, 1 << 30, std::max<Index>(1, model_.particle_count / 64));
    for (Index p = 0; p < model_.particle_count; p += every) markers.push_back(static_cast<std::int32_t>(p));
    const int stride = static_cast<int>(node.integer("stride", 1, steps, 1));
    const ScenarioNode reference = node.child("reference");
    const ScenarioNode generate = reference.child("generate");
    std::vector<sb::GeneratingValue> generating;
    auto add = [&](std::string_view key, Array<1>& quantity) {
      if (generate.has(key)) generating.push_back({&quantity, generate.number(key)});
    };
    add("youngs_modulus", model_.youngs);
    add("poisson_ratio", model_.poisson);
    add("density", model_.density);
    add("friction_angle", model_.friction_angle);
    add("hardening", model_.hardening);
    add("bulk_modulus", model_.bulk_modulus);
    const sb::MarkerNoise noise{reference.non_negative("noise", 0.0), reference.non_negative("noise_relative", 0.0),
                                static_cast<std::uint64_t>(reference.integer("seed", 0, 1LL << 53, 1))};
    std::vector<double> positions;
    try {
      positions = sb::simulate_marker_reference<D>(*system_, model_.particle_count, markers, stride, steps, generating, noise);
    } catch (const std::exception& e) {
      reference.fail("generate", std::string("the reference run failed: ") + e.what());
    }
    loss_ = std::make_unique<sb::TrajectoryMatchLoss<D>>(model_.particle_count, markers, stride, std::move(positions));
  }

  mp::MpmModel<D> model_;
  std::vector<ScenarioNode> bodies_;
  std::unique_ptr<mp::Mpm<D>> system_;
  std::unique_ptr<control::Controller> controller_;
  double controller_bound_ = 10.0;
  std::unique_ptr<TrajectoryLoss> loss_;
  std::unique_ptr<tune::RolloutProblem> problem_;
};

}  // namespace

std::unique_ptr<Scenario> load_mpm_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  if (root.integer("dimension", 2, 3, 2) == 3) return std::make_unique<MpmScenario<3>>(root, overrides);
  return std::make_unique<MpmScenario<2>>(root, overrides);
}

SimulatorInfo mpm_info() {
  SimulatorInfo info;
  info.name = "mpm";
  info.description = "material point method (MLS-MPM) in 2D and 3D: jelly (fixed corotated, neo-Hookean), Drucker-Prager sand, "
                     "snow and weakly compressible liquid on a grid with walls and colliders, actuated soft robots; material "
                     "constants, the start and actuation tuned for progress, a target, a run-out or reference tracks";
  info.tunables = tune::tunable_infos(mp::mpm_tunables<2>());
  info.load = load_mpm_scenario;
  return info;
}

}  // namespace simgrad::scenario
