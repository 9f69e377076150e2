#include "scenario/structure_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/structure_frames.hpp"
#include "scenario/tuned_parameter.hpp"
#include "sims/structure/bridge_generator.hpp"
#include "sims/structure/dynamic.hpp"
#include "sims/structure/explain.hpp"
#include "sims/structure/structure_problem.hpp"
#include "sims/structure/tunables.hpp"
#include "sims/structure/vehicle.hpp"

namespace simgrad::scenario {

namespace st = simgrad::structure;

namespace {

// An axis named "x", "y" (or, in 3D, "z") as its index.
int axis_of(const ScenarioNode& value, int dimension) {
  const std::string axis = dimension == 3 ? value.as_choice({"x", "y", "z"}) : value.as_choice({"x", "y"});
  return axis[0] - 'x';
}

// The axis node[key] names; `fallback` when the key is absent.
int axis_index(const ScenarioNode& node, std::string_view key, int dimension, int fallback) {
  return node.has(key) ? axis_of(node.member(key), dimension) : fallback;
}

// A vector of the structure's dimension (a frame's load may add a moment as a third entry).
std::array<double, 3> vector_of(const ScenarioNode& node, std::string_view key, int minimum, int maximum) {
  const std::vector<double> v = node.numbers(key);
  if (static_cast<int>(v.size()) < minimum || static_cast<int>(v.size()) > maximum)
    node.fail(key, "expected " + std::to_string(minimum) + (minimum == maximum ? "" : " or " + std::to_string(maximum)) +
                       " numbers, got " + std::to_string(v.size()));
  std::array<double, 3> out{};
  std::copy(v.begin(), v.end(), out.begin());
  return out;
}

class StructureScenario final : public Scenario {
 public:
  explicit StructureScenario(const ScenarioNode& root) {
    const std::string kind = root.choice("kind", {"truss2d", "truss3d", "frame2d"});
    model_.kind = kind == "truss2d" ? st::StructureKind::truss2d : kind == "truss3d" ? st::StructureKind::truss3d
                                                                                      : st::StructureKind::frame2d;
    explain_.length_unit = root.string("length_unit", "m");
    read_materials(root.child("materials"));
    if (root.has("sections"))
      for (const auto& [name, s] : root.child("sections").members()) sections_[name] = read_section(s.as_object(), name);
    for (const ScenarioNode& e : root.optional_array("catalogue"))
      model_.catalogue.push_back({section_of(e.as_object(), "section"), material_of(e.as_object(), "material")});
    if (root.has("generate")) generate(root.child("generate"));
    else read_joints_and_members(root);
    if (root.has("supports")) {
      model_.supports.clear();
      for (const ScenarioNode& s : root.array("supports")) read_support(s.as_object());
    }
    for (const ScenarioNode& c : root.optional_array("load_cases")) read_load_case(c.as_object());
    if (root.has("vehicle")) read_vehicle(root.child("vehicle"));
    if (model_.load_cases.empty()) root.fail("load_cases", "expected at least one load case (or a vehicle)");
    if (root.has("dynamic")) read_dynamic(root.child("dynamic"));
    read_rating(root.child("rating"));
    const ScenarioNode tune_node = root.child("tune");
    tune = read_tune_options(tune_node);
    const std::vector<int> fixed = tune_node.has("fixed_joints") ? tune_node.indices("fixed_joints", model_.joint_count) : std::vector<int>{};
    std::vector<st::PartRequest> requests;
    for (const ScenarioNode& p : tune_node.array("parameters")) requests.push_back(read_request(p.as_object()));
    if (requests.empty()) tune_node.fail("parameters", "expected at least one parameter to tune");
    try {
      problem_ = std::make_unique<st::StructureProblem>(model_, design_, requests, fixed);
    } catch (const std::invalid_argument& e) {
      tune_node.fail("parameters", e.what());
    }
    if (auto e = root.optional_child("explain")) {
      if (e->has("joint_step")) explain_.joint_step = e->positive("joint_step");
      explain_.area_step = e->in_range("area_step", 1e-6, 0.9, explain_.area_step);
      explain_.logit_step = e->positive("logit_step", explain_.logit_step);
      explain_.hints = static_cast<int>(e->integer("hints", 1, 1000, explain_.hints));
    }
    // A structure that cannot stand is bad input: say so now, at the file, not mid-run.
    try {
      problem_->analysis().rate(problem_->initial_design());
    } catch (const st::StructureError& e) {
      root.fail("supports", e.what());
    }
  }

  std::string simulator() const override { return "structure"; }
  tune::Problem& problem() override { return *problem_; }

  double hard_loss(std::span<const double> x) override {
    problem_->assign(x);
    return problem_->analysis().rate(problem_->design(), true).rating;
  }

  nlohmann::json summary() override { return report::structure_summary(*problem_, dynamic_ ? &*dynamic_ : nullptr, dynamic_limit_); }

  bool gives_hints() const override { return true; }
  nlohmann::json explain(std::span<const double> x, const ExplainRequest& request) override {
    st::ExplainOptions options = explain_;
    if (request.hints > 0) options.hints = request.hints;
    if (request.joint_step > 0) options.joint_step = request.joint_step;
    if (request.area_step > 0) options.area_step = request.area_step;
    return report::explanation_json(*problem_, st::explain(*problem_, x, options));
  }

  // Members coloured by stress ratio and explain's joint moves (report/structure_frames.hpp).
  nlohmann::json frames(std::span<const double> x) override { return report::structure_frames(*problem_, explain_, x); }

 private:
  // The game view: the same truss in motion under the vehicle, with breaking members.
  void read_dynamic(const ScenarioNode& d) {
    if (const std::string why = st::dynamic_unsupported(model_); !why.empty()) d.fail(why);
    st::DynamicSettings& s = dynamic_.emplace();
    s.dt = d.positive("dt");
    s.steps = static_cast<int>(d.integer("steps", 1, 10000000));
    s.damping = d.non_negative("damping", s.damping);
    s.break_strain = d.positive("break_strain", s.break_strain);
    s.break_width = d.positive("break_width", s.break_strain / 50.0);
    s.joint_mass = d.non_negative("joint_mass", 0.0);
    const int dim = model_.dimension();
    if (d.has("gravity")) s.gravity = vector_of(d, "gravity", dim, dim);
    s.deck = d.indices("deck", model_.joint_count);
    s.vehicle_load = d.non_negative("vehicle_load", 0.0);
    s.vehicle_speed = d.non_negative("vehicle_speed", 0.0);
    dynamic_limit_ = d.positive("deflection_limit", model_.rating.span > 0 ? model_.rating.span / model_.rating.deflection_ratio : 1.0);
  }

  void read_materials(const ScenarioNode& materials) {
    for (const auto& [name, node] : materials.members()) {
      const ScenarioNode m = node.as_object();
      material_index_[name] = static_cast<int>(model_.materials.size());
      model_.materials.push_back({name, m.positive("young"), m.positive("yield"), m.positive("density"),
                                  m.non_negative("price", 0.0)});
    }
    if (model_.materials.empty()) materials.fail("expected at least one material");
  }

  // A section; an unset section modulus is that of a solid square of the same area (2 I / sqrt A).
  st::Section read_section(const ScenarioNode& s, const std::string& name) {
    st::Section section{name, s.positive("area"), s.positive("inertia"), 0.0};
    section.modulus = s.positive("modulus", 2.0 * section.inertia / std::sqrt(section.area));
    return section;
  }

  // The entry of `entries` that node[key] names; `what` is the kind of entry, `where` its section.
  template <class T>
  static T named(const std::map<std::string, T>& entries, const ScenarioNode& node, std::string_view key,
                 const std::string& what, const std::string& where) {
    const std::string name = node.string(key);
    const auto it = entries.find(name);
    if (it == entries.end()) node.fail(key, "no " + what + " named \"" + name + "\" in \"" + where + "\"");
    return it->second;
  }
  int material_of(const ScenarioNode& node, std::string_view key) { return named(material_index_, node, key, "material", "materials"); }
  st::Section section_of(const ScenarioNode& node, std::string_view key) { return named(sections_, node, key, "section", "sections"); }

  void generate(const ScenarioNode& g) {
    const std::string type = g.choice("type", {"warren", "pratt"});
    const int panels = static_cast<int>(g.integer("panels", 2, 1000000));
    const int material = material_of(g, "material");
    st::Structure s = st::make_bridge(type == "warren" ? st::BridgeType::warren : st::BridgeType::pratt, panels,
                                      g.positive("panel"), g.positive("height"), model_.materials, material,
                                      section_of(g, "section"), model_.catalogue);
    if (model_.kind != st::StructureKind::truss2d) g.fail("type", "generated bridges are \"kind\": \"truss2d\"");
    model_ = std::move(s.model);
    design_ = std::move(s.design);
  }

  void read_joints_and_members(const ScenarioNode& root) {
    const int d = model_.dimension();
    for (const ScenarioNode& j : root.array("joints")) {
      const std::vector<double> p = j.as_numbers(static_cast<std::size_t>(d));
      design_.positions.insert(design_.positions.end(), p.begin(), p.end());
      ++model_.joint_count;
    }
    if (model_.joint_count < 2) root.fail("joints", "expected at least two joints");
    const std::optional<ScenarioNode> defaults = root.optional_child("member_defaults");
    const int default_material = defaults && defaults->has("material") ? material_of(*defaults, "material") : 0;
    const bool has_default_section = defaults && defaults->has("section");
    const st::Section default_section = has_default_section ? section_of(*defaults, "section") : st::Section{};
    const double default_factor = defaults ? defaults->positive("buckling_length_factor", 1.0) : 1.0;
    const std::size_t entries = model_.catalogue.size();
    for (const ScenarioNode& node : root.array("members")) {
      st::Member m;
      m.material = default_material;
      m.section = default_section;
      m.buckling_length_factor = default_factor;
      std::vector<std::int64_t> ends;
      bool has_section = has_default_section;
      std::vector<double> logits(entries, 0.0);
      if (node.json().is_array()) {
        ends = node.as_integers(0, model_.joint_count - 1, 2);
      } else {
        const ScenarioNode o = node.as_object();
        ends = o.integers("joints", 0, model_.joint_count - 1, 2);
        if (o.has("material")) m.material = material_of(o, "material");
        if (o.has("section")) {
          m.section = section_of(o, "section");
          has_section = true;
        }
        m.buckling_length_factor = o.positive("buckling_length_factor", m.buckling_length_factor);
        if (o.has("catalogue")) {
          if (entries == 0) o.fail("catalogue", "the scenario has no \"catalogue\"");
          const std::string start = o.string("catalogue");
          std::size_t k = 0;
          while (k < entries && model_.catalogue[k].section.name != start) ++k;
          if (k == entries) o.fail("catalogue", "no catalogue entry with section \"" + start + "\"");
          m.catalogue = 0;
          logits[k] = 2.0;  // the starting choice leads the softmax
          has_section = true;
        }
      }
      if (ends[0] == ends[1]) node.fail_expected("two different joints");
      if (!has_section) node.fail("expected a \"section\" (or \"catalogue\"), here or in \"member_defaults\"");
      m.joints = {static_cast<int>(ends[0]), static_cast<int>(ends[1])};
      model_.members.push_back(m);
      design_.areas.push_back(m.catalogue >= 0 ? 1.0 : m.section.area);
      design_.logits.insert(design_.logits.end(), logits.begin(), logits.end());
    }
    if (model_.members.empty()) root.fail("members", "expected at least one member");
  }

  void read_support(const ScenarioNode& s) {
    st::Support support;
    support.joint = static_cast<int>(s.integer("joint", 0, model_.joint_count - 1));
    const std::string type = s.choice("type", {"pinned", "roller", "fixed"});
    support.kind = type == "pinned" ? st::SupportKind::pinned : type == "roller" ? st::SupportKind::roller : st::SupportKind::fixed;
    if (support.kind == st::SupportKind::fixed && model_.kind != st::StructureKind::frame2d)
      s.fail("type", "a truss joint is a pin: use \"pinned\" or \"roller\" (\"fixed\" holds a frame's rotation)");
    support.roller_axis = axis_index(s, "axis", model_.dimension(), model_.dimension() - 1);
    model_.supports.push_back(support);
  }

  void read_load_case(const ScenarioNode& c) {
    st::LoadCase lc;
    lc.name = c.string("name", "load case " + std::to_string(model_.load_cases.size()));
    lc.self_weight = c.boolean("self_weight", false);
    const int d = model_.dimension();
    if (c.has("gravity")) lc.gravity = vector_of(c, "gravity", d, d);
    else if (lc.self_weight) lc.gravity[static_cast<std::size_t>(d - 1)] = -9.81;
    const int rotations = model_.kind == st::StructureKind::frame2d ? 1 : 0;
    for (const ScenarioNode& l : c.optional_array("loads")) {
      const ScenarioNode load = l.as_object();
      lc.loads.push_back({static_cast<int>(load.integer("joint", 0, model_.joint_count - 1)),
                          vector_of(load, "force", d, d + rotations)});
    }
    model_.load_cases.push_back(std::move(lc));
  }

  // A vehicle crossing the deck: one load case per position (see sims/structure/vehicle.hpp).
  void read_vehicle(const ScenarioNode& v) {
    st::Vehicle vehicle;
    vehicle.deck = v.indices("deck", model_.joint_count);
    if (vehicle.deck.size() < 2) v.fail("deck", "expected at least two deck joints");
    for (const ScenarioNode& a : v.array("axles")) {
      const ScenarioNode axle = a.as_object();
      vehicle.axles.emplace_back(axle.non_negative("offset", 0.0), axle.positive("load"));
    }
    if (vehicle.axles.empty()) v.fail("axles", "expected at least one axle");
    vehicle.positions = static_cast<int>(v.integer("positions", 1, 100000));
    vehicle.self_weight = v.boolean("self_weight", true);
    vehicle.down_axis = static_cast<int>(v.integer("down_axis", 0, model_.dimension() - 1, model_.dimension() - 1));
    for (st::LoadCase& c : st::vehicle_load_cases(model_, design_, vehicle)) model_.load_cases.push_back(std::move(c));
  }

  void read_rating(const ScenarioNode& r) {
    st::RatingSettings& s = model_.rating;
    const ScenarioNode w = r.child("weights");
    s.weights.mass = w.non_negative("mass", 0.0);
    s.weights.cost = w.non_negative("cost", 0.0);
    s.weights.stress = w.non_negative("stress", 0.0);
    s.weights.stress_penalty = w.non_negative("stress_penalty", 0.0);
    s.weights.deflection = w.non_negative("deflection", 0.0);
    s.weights.deflection_penalty = w.non_negative("deflection_penalty", 0.0);
    s.weights.budget_penalty = w.non_negative("budget_penalty", 0.0);
    s.joint_price = r.non_negative("joint_price", 0.0);
    s.temperature = r.positive("temperature", s.temperature);
    if (model_.rating.span <= 0.0 || r.has("span")) s.span = r.non_negative("span", 0.0);
    s.deflection_ratio = r.positive("deflection_ratio", s.deflection_ratio);
    s.deflection_axis = axis_index(r, "deflection_axis", model_.dimension(), model_.dimension() - 1);
    for (int j : r.has("deflection_joints") ? r.indices("deflection_joints", model_.joint_count) : std::vector<int>{})
      model_.deflection_joints.push_back(j);
    s.budget = r.non_negative("budget", 0.0);
    s.buckling = r.boolean("buckling", true);
    s.catalogue_temperature = r.positive("catalogue_temperature", s.catalogue_temperature);
    if ((s.weights.deflection > 0 || s.weights.deflection_penalty > 0) && s.span <= 0.0)
      r.fail("span", "a deflection term needs the span (the limit is span / deflection_ratio)");
    if (s.weights.budget_penalty > 0 && s.budget <= 0.0) r.fail("budget", "a budget penalty needs a budget > 0");
  }

  st::PartRequest read_request(const ScenarioNode& p) {
    st::PartRequest r;
    const std::string name = p.choice("name", {"joint_offset", "area", "section_choice"});
    r.kind = name == "joint_offset" ? st::PartKind::joint_offset : name == "area" ? st::PartKind::area : st::PartKind::section_choice;
    if (r.kind == st::PartKind::joint_offset) {
      if (p.has("joints")) r.parts = p.indices("joints", model_.joint_count);
      if (p.has("axes"))
        for (const ScenarioNode& a : p.array("axes")) r.axes.push_back(axis_of(a, model_.dimension()));
    } else if (p.has("members")) {
      r.parts = p.indices("members", static_cast<std::int64_t>(model_.members.size()));
    }
    if (r.kind == st::PartKind::area) {  // required and positive; the others default to a symmetric range
      p.positive("lower");
      p.positive("upper");
    }
    const double bound = r.kind == st::PartKind::section_choice ? 10.0 : 0.0;
    const ParameterBounds bounds = read_parameter_bounds(p, {-bound, bound});
    r.lower = bounds.lower;
    r.upper = bounds.upper;
    r.transform = bounds.transform;
    return r;
  }

  st::TrussModel model_;
  st::Design design_;
  std::map<std::string, int> material_index_;
  std::map<std::string, st::Section> sections_;
  st::ExplainOptions explain_;
  std::optional<st::DynamicSettings> dynamic_;  // the game view's settings, if it has one
  double dynamic_limit_ = 1.0;
  std::unique_ptr<st::StructureProblem> problem_;
};

}  // namespace

std::unique_ptr<Scenario> load_structure_scenario(const ScenarioNode& root) {
  return std::make_unique<StructureScenario>(root);
}

SimulatorInfo structure_info() {
  SimulatorInfo info;
  info.name = "structure";
  info.description = "2D and 3D pin-jointed trusses and 2D frames under load cases (self-weight, point loads, a vehicle "
                     "crossing the deck), rated on cost, stress ratios (yield, Euler and Johnson buckling) and "
                     "deflection by the direct stiffness method; gradients by the adjoint";
  info.tunables = st::structure_tunables();
  info.table_parameters = false;
  info.load = [](const ScenarioNode& root, const ScenarioOverrides&) { return load_structure_scenario(root); };
  return info;
}

}  // namespace simgrad::scenario
