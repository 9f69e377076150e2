#include "scenario/fem_scenario.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "report/fem_frames.hpp"
#include "scenario/run_export.hpp"
#include "scenario/softbody_scenario.hpp"
#include "scenario/tuned_parameter.hpp"
#include "sims/fem/fem.hpp"
#include "sims/fem/mesh.hpp"
#include "sims/fem/tunables.hpp"
#include "sims/softbody/losses.hpp"
#include "sims/softbody/marker_reference.hpp"

namespace simgrad::scenario {

namespace sb = simgrad::softbody;

namespace {

double fem_default(std::string_view name) { return tunable_default(fem::fem_tunables<2>(), name); }

// The mesh: a generated shape or a TetGen / Triangle file pair.
template <int D>
fem::FemMesh<D> read_mesh(const ScenarioNode& mesh) {
  const std::string type = mesh.choice("type", {"box", "beam", "rectangle", "disk", "tetgen"});
  const bool three = type == "box" || type == "beam";
  const bool two = type == "rectangle" || type == "disk";
  if ((D == 2 && three) || (D == 3 && two))
    mesh.fail("type", "a " + type + " mesh needs \"dimension\": " + std::string(three ? "3" : "2"));
  const Vec<double, D> origin = vec_of<D>(mesh, type == "disk" ? "centre" : "origin", Vec<double, D>::zero());
  if (type == "tetgen") {
    // The .ele file lies beside the .node file.
    std::filesystem::path base = mesh.existing_file("node_file");
    base.replace_extension();
    try {
      return fem::read_tetgen<D>(base.string());
    } catch (const std::invalid_argument& e) {
      mesh.fail("node_file", e.what());
    }
  }
  if constexpr (D == 3) {
    if (type == "beam") {
      return fem::make_beam_mesh(mesh.positive("length"), mesh.positive("height"), mesh.positive("width"),
                                static_cast<int>(mesh.integer("cells_along", 1, 10000)),
                                static_cast<int>(mesh.integer("cells_across", 1, 1000)), origin);
    }
    const std::vector<std::int64_t> cells = mesh.integers("cells", 1, 1000, 3);
    const std::vector<double> size = mesh.numbers("size", 3);
    for (double s : size)
      if (!(s > 0.0)) mesh.fail("size", "expected sizes > 0");
    return fem::make_box_mesh(static_cast<int>(cells[0]), static_cast<int>(cells[1]), static_cast<int>(cells[2]),
                             {{size[0], size[1], size[2]}}, origin);
  } else {
    if (type == "disk")
      return fem::make_disk_mesh(mesh.positive("radius"), static_cast<int>(mesh.integer("rings", 1, 1000)), origin);
    const std::vector<std::int64_t> cells = mesh.integers("cells", 1, 10000, 2);
    const std::vector<double> size = mesh.numbers("size", 2);
    for (double s : size)
      if (!(s > 0.0)) mesh.fail("size", "expected sizes > 0");
    return fem::make_rectangle_mesh(static_cast<int>(cells[0]), static_cast<int>(cells[1]), {{size[0], size[1]}},
                                   origin);
  }
}

// Per-region material values: one number for all regions or one per region.
template <int D>
void read_materials(const ScenarioNode& root, fem::FemModel<D>& m) {
  const auto regions = static_cast<std::size_t>(m.region_count);
  const std::vector<double> youngs = per_entry(root, "youngs_modulus", regions, fem_default("youngs_modulus"));
  const std::vector<double> poisson = per_entry(root, "poisson_ratio", regions, fem_default("poisson_ratio"));
  const std::vector<double> damping = per_entry(root, "damping", regions, fem_default("damping"));
  const std::vector<double> density = per_entry(root, "density", regions, 1000.0);
  for (std::size_t r = 0; r < regions; ++r) {
    if (!(youngs[r] > 0.0)) root.fail("youngs_modulus", "expected values > 0");
    if (!(poisson[r] > -1.0 && poisson[r] < 0.5)) root.fail("poisson_ratio", "expected values in (-1, 0.5)");
    if (!(damping[r] >= 0.0)) root.fail("damping", "expected values >= 0");
    if (!(density[r] > 0.0)) root.fail("density", "expected values > 0");
    m.youngs.values()[r] = youngs[r];
    m.poisson.values()[r] = poisson[r];
    m.damping.values()[r] = damping[r];
    m.density[r] = density[r];
  }
  m.update_masses();
}

template <int D>
class FemScenario final : public Scenario {
 public:
  FemScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    steps = static_cast<int>(root.integer("steps", 1, 100000000));
    fem::FemMesh<D> mesh = read_mesh<D>(root.child("mesh"));
    if (root.has("region_boxes")) assign_regions(root, mesh);
    try {
      model_.build(mesh.positions, mesh.elements, mesh.regions, steps);
    } catch (const std::invalid_argument& e) {
      root.fail("mesh", e.what());
    }
    fem::FemSettings& s = model_.settings;
    s.dt = root.positive("dt");
    model_.mass_damping.values()[0] = root.non_negative("mass_damping", fem_default("mass_damping"));
    s.integrator = root.choice("integrator", {"symplectic_euler", "implicit_euler"}, "symplectic_euler") == "implicit_euler"
                       ? fem::FemIntegrator::kImplicitEuler
                       : fem::FemIntegrator::kSymplecticEuler;
    s.material = root.choice("material", {"corotated", "neo_hookean"}, "corotated") == "corotated"
                     ? fem::MaterialModel::kCorotated
                     : fem::MaterialModel::kNeoHookean;
    read_penalty(root, s.penalty);
    read_materials(root, model_);
    const std::int64_t last_node = model_.node_count - 1;
    for (const ScenarioNode& p : root.optional_array("pinned")) model_.pin(p.as_integer(0, last_node));
    if (auto box = root.optional_child("pin_box")) pin_box(*box);
    const Vec<double, D> g = vec_of<D>(root, "gravity", Vec<double, D>::zero());
    for (int k = 0; k < D; ++k) model_.gravity.values()[k] = g[k];
    const Vec<double, D> v0 = vec_of<D>(root, "initial_velocity", Vec<double, D>::zero());
    for (Index i = 0; i < model_.node_count; ++i)
      for (int k = 0; k < D; ++k) model_.initial_velocity.values()[i * D + k] = model_.pinned[i] ? 0.0 : v0[k];
    for (const ScenarioNode& p : root.optional_array("planes")) model_.planes.push_back(read_contact_plane<D>(p.as_object()));
    for (const ScenarioNode& b : root.optional_array("boxes")) model_.boxes.push_back(read_box(b.as_object()));

    if (auto obj = root.optional_child("surface_obj")) {
      obj_.folder = obj->string("folder");
      obj_.every = static_cast<int>(obj->integer("every", 1, steps, std::max(1, steps / 100)));
    }

    system_ = std::make_unique<fem::Fem<D>>(model_);
    read_loss(root.child("loss"));
    problem_ = read_tuned_rollout(root, overrides, fem::fem_tunables<D>(), model_, *system_, *loss_, steps, tune);
  }

  std::string simulator() const override { return "fem"; }
  tune::RolloutProblem& problem() override { return *problem_; }
  const fem::MarkerTrajectory& reference() const { return reference_; }

  // The loss at x on the model's hard twin (the penalty contact hard), run by a system of its own.
  double hard_loss(std::span<const double> x) override {
    problem_->assign(x);
    fem::FemModel<D> hard = model_.hard_twin();
    fem::Fem<D> system(hard);
    return problem_->twin_value(system, *loss_);
  }

  nlohmann::json summary() override { return report::fem_summary(model_); }

  // Nodes and element edges every few steps, edges coloured by strain (report/fem_frames.hpp).
  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    return report::fem_frames(*system_, *loss_, steps, obj_);
  }

  // The nodes and the elements: triangles in 2D; in 3D the tetrahedra and their surface
  // triangles, which a glTF mesh draws (run_export.hpp).
  std::optional<report::Animation> animation(std::span<const double> x) override {
    report::Animation out;
    out.dimension = D;
    out.point_count = model_.node_count;
    std::vector<std::int32_t> element_nodes;
    for (Index e = 0; e < model_.element_count(); ++e)
      for (int k = 0; k <= D; ++k) element_nodes.push_back(static_cast<std::int32_t>(model_.elements.node(e, k)));
    if constexpr (D == 2) {
      for (Index e = 0; e < model_.element_count(); ++e)
        out.triangles.push_back({model_.elements.node(e, 0), model_.elements.node(e, 1), model_.elements.node(e, 2)});
    } else {
      for (Index e = 0; e < model_.element_count(); ++e)
        out.tetrahedra.push_back({model_.elements.node(e, 0), model_.elements.node(e, 1), model_.elements.node(e, 2),
                                  model_.elements.node(e, 3)});
      for (const auto& t : fem::surface_triangles<D>(model_.node_count, element_nodes)) out.triangles.push_back({t[0], t[1], t[2]});
    }
    record_frames(*this, x, kExportFrames, [&](int t, std::span<const double> state) { out.add_frame(t * model_.settings.dt, state); });
    return out;
  }

 private:
  // Regions of a mesh from "region_boxes": [{"min", "max"}, ...]: an element whose centroid lies in
  // box k is in region k + 1 (the first box that holds it); the rest stay in region 0.
  static void assign_regions(const ScenarioNode& root, fem::FemMesh<D>& mesh) {
    std::vector<std::pair<Vec<double, D>, Vec<double, D>>> boxes;
    for (const ScenarioNode& b : root.array("region_boxes")) {
      const ScenarioNode box = b.as_object();
      boxes.emplace_back(vec_of<D>(box, "min", Vec<double, D>::zero()), vec_of<D>(box, "max", Vec<double, D>::zero()));
    }
    mesh.regions.assign(static_cast<std::size_t>(mesh.element_count()), 0);
    for (Index e = 0; e < mesh.element_count(); ++e) {
      Vec<double, D> centroid = Vec<double, D>::zero();
      for (int s = 0; s <= D; ++s)
        for (int k = 0; k < D; ++k) centroid[k] += mesh.positions[mesh.elements[e * (D + 1) + s] * D + k] / (D + 1);
      for (std::size_t b = 0; b < boxes.size(); ++b) {
        bool inside = true;
        for (int k = 0; k < D; ++k) inside = inside && centroid[k] >= boxes[b].first[k] && centroid[k] <= boxes[b].second[k];
        if (inside) {
          mesh.regions[static_cast<std::size_t>(e)] = static_cast<std::int32_t>(b + 1);
          break;
        }
      }
    }
  }

  // A static box obstacle: "min", "max" corners and "friction".
  static sb::ContactBox<D> read_box(const ScenarioNode& node) {
    sb::ContactBox<D> box;
    box.lo = vec_of<D>(node, "min", Vec<double, D>::zero());
    box.hi = vec_of<D>(node, "max", Vec<double, D>::zero());
    for (int k = 0; k < D; ++k)
      if (!(box.lo[k] < box.hi[k])) node.fail("max", "expected max > min in every coordinate");
    box.friction = node.non_negative("friction", 0.0);
    return box;
  }

  void pin_box(const ScenarioNode& box) {
    const Vec<double, D> lo = vec_of<D>(box, "min", Vec<double, D>::zero());
    const Vec<double, D> hi = vec_of<D>(box, "max", Vec<double, D>::zero());
    int pinned = 0;
    for (Index i = 0; i < model_.node_count; ++i) {
      bool inside = true;
      for (int k = 0; k < D; ++k) {
        const double c = model_.initial_position.values()[i * D + k];
        inside = inside && c >= lo[k] && c <= hi[k];
      }
      if (inside) {
        model_.pin(i);
        ++pinned;
      }
    }
    if (pinned == 0) box.fail("min", "no node lies inside the box [min, max]");
  }

  // The reference is a CSV of marker positions, or simulated with other material values plus
  // Gaussian noise: "noise" in metres, or "noise_relative" times the RMS marker displacement.
  void read_loss(const ScenarioNode& loss) {
    loss.choice("type", {"trajectory_match"});
    const ScenarioNode reference = loss.child("reference");
    if (reference.has("csv")) {
      const std::filesystem::path csv = reference.existing_file("csv");
      try {
        reference_ = fem::read_marker_csv(csv.string(), D);
        stride_ = fem::steps_per_frame(reference_, model_.settings.dt, csv.string());
      } catch (const std::invalid_argument& e) {
        reference.fail("csv", e.what());
      }
      for (const std::int32_t m : reference_.markers)
        if (m >= model_.node_count)
          reference.fail("csv", "marker node " + std::to_string(m) + " does not exist (the mesh has " +
                                    std::to_string(model_.node_count) + " nodes)");
    } else {
      generate_reference(loss, reference);
    }
    loss_ = std::make_unique<sb::TrajectoryMatchLoss<D>>(model_.node_count, reference_.markers, stride_,
                                                         reference_.positions);
  }

  void generate_reference(const ScenarioNode& loss, const ScenarioNode& reference) {
    if (loss.has("markers")) {
      for (std::int64_t m : loss.integers("markers", 0, model_.node_count - 1))
        reference_.markers.push_back(static_cast<std::int32_t>(m));
    } else {
      for (Index i = 0; i < model_.node_count; ++i) reference_.markers.push_back(static_cast<std::int32_t>(i));
    }
    stride_ = static_cast<int>(loss.integer("stride", 1, steps));
    reference_.dimension = D;
    reference_.frame_interval = stride_ * model_.settings.dt;
    const ScenarioNode generate = reference.child("generate");
    const sb::MarkerNoise noise{reference.non_negative("noise", 0.0), reference.non_negative("noise_relative", 0.0),
                                static_cast<std::uint64_t>(reference.integer("seed", 0, 1LL << 53, 1))};
    // Simulated with the generating values (one for all regions).
    std::vector<sb::GeneratingValue> generating;
    auto add = [&](std::string_view key, Array<1>& quantity, double lo, double hi) {
      if (generate.has(key)) generating.push_back({&quantity, generate.in_range(key, lo, hi)});
    };
    add("youngs_modulus", model_.youngs, 1e-300, 1e300);
    add("poisson_ratio", model_.poisson, -0.999, 0.499);
    add("damping", model_.damping, 0.0, 1e300);
    add("mass_damping", model_.mass_damping, 0.0, 1e300);
    reference_.positions =
        sb::simulate_marker_reference<D>(*system_, model_.node_count, reference_.markers, stride_, steps, generating, noise);
  }

  fem::FemModel<D> model_;
  report::SurfaceObj obj_;  // "surface_obj": where frames() also writes the surface as .obj
  std::unique_ptr<fem::Fem<D>> system_;
  fem::MarkerTrajectory reference_;
  int stride_ = 1;
  std::unique_ptr<TrajectoryLoss> loss_;
  std::unique_ptr<tune::RolloutProblem> problem_;
};

}  // namespace

std::unique_ptr<Scenario> load_fem_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  const std::int64_t dimension = root.integer("dimension", 2, 3);
  if (dimension == 2) return std::make_unique<FemScenario<2>>(root, overrides);
  return std::make_unique<FemScenario<3>>(root, overrides);
}

const fem::MarkerTrajectory& fem_reference(const Scenario& scenario) {
  if (const auto* s2 = dynamic_cast<const FemScenario<2>*>(&scenario)) return s2->reference();
  if (const auto* s3 = dynamic_cast<const FemScenario<3>*>(&scenario)) return s3->reference();
  throw std::invalid_argument("not a fem scenario");
}

SimulatorInfo fem_info() {
  SimulatorInfo info;
  info.name = "fem";
  info.description = "finite-element soft bodies in 2D (linear triangles) and 3D (linear tetrahedra): corotated or "
                     "neo-Hookean material per region with Rayleigh damping; symplectic or implicit Euler; generated "
                     "or TetGen meshes, pinned nodes, ground, walls and static boxes with friction; fitted to marker "
                     "motion (CSV)";
  info.tunables = tune::tunable_infos(fem::fem_tunables<3>());
  info.load = load_fem_scenario;
  return info;
}

}  // namespace simgrad::scenario
