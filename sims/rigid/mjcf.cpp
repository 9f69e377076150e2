// Reading an MJCF file: the document and its error messages (file and line from pugixml's
// offsets), the schema check of every element, the default classes, and the model-wide elements
// (compiler, option, actuators, exclusions, keyframes), then the contact pairs and the tunables.
#include "sims/rigid/mjcf.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include "sims/rigid/collision.hpp"
#include "sims/rigid/mjcf_reader.hpp"
#include "sims/rigid/mjcf_schema.hpp"

namespace simgrad::rigid {
namespace mjcf {

// The kind of default entry an element takes: MuJoCo keeps one actuator default for all the
// actuator shortcuts.
static std::string default_kind(std::string_view element) {
  if (element == "motor" || element == "position" || element == "velocity") return "actuator";
  return std::string(element);
}

Reader::Reader(std::string_view xml, std::string file, const MjcfOptions& options)
    : file_(std::move(file)), options_(options) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < xml.size(); ++i)
    if (xml[i] == '\n') line_starts_.push_back(i + 1);
  const pugi::xml_parse_result parsed = document_.load_buffer(xml.data(), xml.size());
  if (!parsed) {
    const auto at = std::upper_bound(line_starts_.begin(), line_starts_.end(), static_cast<std::size_t>(parsed.offset));
    throw MjcfError(file_ + ":" + std::to_string(at - line_starts_.begin()) + ": malformed XML: " + parsed.description());
  }
  classes_["main"];
}

// The 1-based line of a node, from its offset in the text.
static int line_of(pugi::xml_node node, const std::vector<std::size_t>& line_starts) {
  const std::ptrdiff_t offset = node.offset_debug();
  if (offset < 0) return 0;
  return static_cast<int>(std::upper_bound(line_starts.begin(), line_starts.end(), static_cast<std::size_t>(offset)) -
                          line_starts.begin());
}

void Reader::fail(pugi::xml_node node, const std::string& what) const {
  throw MjcfError(file_ + ":" + std::to_string(line_of(node, line_starts_)) + ": <" + node.name() + ">: " + what);
}

void Reader::fail(pugi::xml_node node, std::string_view attribute, const std::string& what) const {
  throw MjcfError(file_ + ":" + std::to_string(line_of(node, line_starts_)) + ": <" + node.name() + "> attribute '" +
                  std::string(attribute) + "': " + what);
}

void Reader::fail(const Found& at, const std::string& what) const { fail(at.holder, at.attribute.name(), what); }

bool Reader::admit(pugi::xml_node node) const {
  const std::optional<Use> use = element_use(node.name());
  if (!use) fail(node, "element not supported by simgrad's MJCF reader");
  if (*use == Use::kIgnored) return false;
  if (*use == Use::kVisual) {
    if (options_.ignore_visual) return false;
    fail(node, "visual-only element, not modelled by simgrad; set MjcfOptions::ignore_visual to skip it");
  }
  for (const pugi::xml_attribute a : node.attributes()) {
    const std::optional<Use> attribute = attribute_use(node.name(), a.name());
    if (!attribute) fail(node, a.name(), "attribute not supported by simgrad's MJCF reader");
    if (*attribute == Use::kVisual && !options_.ignore_visual)
      fail(node, a.name(), "visual-only attribute, not modelled by simgrad; set MjcfOptions::ignore_visual to skip it");
  }
  return true;
}

void Reader::for_each_child(pugi::xml_node node, const std::function<bool(pugi::xml_node)>& handle) const {
  for (const pugi::xml_node child : node.children()) {
    if (child.type() != pugi::node_element || !admit(child)) continue;
    if (!handle(child)) fail(child, std::string("cannot appear inside <") + node.name() + ">");
  }
}

// An element that must have no children (tendon defaults, empty sections).
void Reader::check_empty(pugi::xml_node node) const {
  for (const pugi::xml_node child : node.children())
    if (child.type() == pugi::node_element && admit(child)) fail(child, std::string("not supported inside <") + node.name() + ">");
}

std::string Reader::class_attribute(pugi::xml_node node, const char* attribute, const std::string& fallback) const {
  const pugi::xml_attribute a = node.attribute(attribute);
  if (!a) return fallback;
  if (!classes_.contains(a.value())) fail(node, attribute, std::string("no default class named '") + a.value() + "'");
  return a.value();
}

Element Reader::element(pugi::xml_node node, const std::string& inherited_class) const {
  const std::string kind = default_kind(node.name());
  std::vector<const DefaultClass*> chain;
  for (std::string name = class_attribute(node, "class", inherited_class); !name.empty();) {
    const DefaultClass& c = classes_.find(name)->second;
    chain.push_back(&c);
    name = c.parent;
  }
  Element e{node, {}};
  for (auto c = chain.rbegin(); c != chain.rend(); ++c) {
    const auto entries = (*c)->entries.find(kind);
    if (entries != (*c)->entries.end()) e.defaults.insert(e.defaults.end(), entries->second.begin(), entries->second.end());
  }
  return e;
}

void Reader::read_compiler(pugi::xml_node node) {
  const Element e{node, {}};
  const std::string angle = word(e, "angle", "degree");
  if (angle != "degree" && angle != "radian") fail(find(e, "angle"), "expects degree or radian");
  compiler_.degree = angle == "degree";
  if (word(e, "coordinate", "local") != "local")
    fail(find(e, "coordinate"), "only local coordinates are supported (MuJoCo 2.3 removed global ones too)");
  const std::string inertia = word(e, "inertiafromgeom", "auto");
  if (inertia != "true" && inertia != "false" && inertia != "auto") fail(find(e, "inertiafromgeom"), "expects true, false or auto");
  compiler_.inertia_from_geom = inertia == "true" ? InertiaFromGeom::kTrue
                                : inertia == "false" ? InertiaFromGeom::kFalse
                                                     : InertiaFromGeom::kAuto;
  compiler_.euler_sequence = word(e, "eulerseq", compiler_.euler_sequence);
  try {
    quat_from_euler(Vec3<double>::zero(), compiler_.euler_sequence);
  } catch (const std::invalid_argument& error) {
    fail(find(e, "eulerseq"), error.what());
  }
  compiler_.total_mass = number(e, "settotalmass", compiler_.total_mass);
  compiler_.autolimits = boolean(e, "autolimits", compiler_.autolimits);
}

void Reader::read_option(pugi::xml_node node) {
  const Element e{node, {}};
  RigidSettings& s = model_.settings;
  s.timestep = number(e, "timestep", s.timestep);
  if (!(s.timestep > 0.0)) fail(find(e, "timestep"), "must be positive");
  s.gravity = vec3(e, "gravity", s.gravity);
  const std::string integrator = word(e, "integrator", "Euler");
  if (integrator != "Euler" && integrator != "RK4")
    fail(find(e, "integrator"), "'" + integrator + "' is not supported (Euler or RK4)");
  s.integrator = integrator == "RK4" ? Integrator::kRK4 : Integrator::kEuler;
  s.viscosity = number(e, "viscosity", s.viscosity);
  s.density = number(e, "density", s.density);
  check_empty(node);
}

void Reader::read_default(pugi::xml_node node, const std::string& parent) {
  const pugi::xml_attribute name_attribute = node.attribute("class");
  const std::string name = name_attribute ? name_attribute.value() : parent.empty() ? "main" : "";
  if (parent.empty() && name != "main") fail(node, "class", "the top-level default class must be 'main'");
  if (name.empty()) fail(node, "a nested default needs a class");
  if (!parent.empty() && classes_.contains(name)) fail(node, "class", "default class '" + name + "' is defined twice");
  classes_[name].parent = parent;
  for_each_child(node, [&](pugi::xml_node child) {
    const std::string_view kind = child.name();
    if (kind == "default") {
      read_default(child, name);
    } else if (kind == "joint" || kind == "geom" || kind == "site" || kind == "motor" || kind == "position" ||
               kind == "velocity") {
      if (child.attribute("class")) fail(child, "class", "not allowed inside <default>");
      classes_[name].entries[default_kind(kind)].push_back(child);
    } else if (kind == "tendon") {
      check_empty(child);  // attributes were refused by admit: tendons are not modelled
    } else {
      return false;
    }
    return true;
  });
}

int Reader::body_index(const Found& name) const {
  for (std::size_t b = 0; b < model_.bodies.size(); ++b)
    if (model_.bodies[b].name == name.attribute.value()) return static_cast<int>(b);
  fail(name, std::string("no body named '") + name.attribute.value() + "'");
}

int Reader::joint_index(const Found& name) const {
  for (std::size_t j = 0; j < model_.joints.size(); ++j)
    if (model_.joints[j].name == name.attribute.value()) return static_cast<int>(j);
  fail(name, std::string("no joint named '") + name.attribute.value() + "'");
}

void Reader::read_actuators(pugi::xml_node node) {
  for_each_child(node, [&](pugi::xml_node child) {
    const std::string_view kind = child.name();
    if (kind != "motor" && kind != "position" && kind != "velocity") return false;
    read_actuator(child);
    return true;
  });
}

// kp or kv. MuJoCo keeps both in one slot (gainprm[0]) of the one actuator default, so a
// position actuator without kp takes the innermost default's kp, kv, or 1 after a motor.
static double actuator_gain(const Element& e, const Reader& reader) {
  const char* own = std::string_view(e.node.name()) == "position" ? "kp" : "kv";
  if (e.node.attribute(own)) return reader.number(Element{e.node, {}}, own, 1.0);
  for (auto d = e.defaults.rbegin(); d != e.defaults.rend(); ++d) {
    const std::string_view kind = d->name();
    if (kind == "motor") return 1.0;
    const char* slot = kind == "position" ? "kp" : "kv";
    if (d->attribute(slot)) return reader.number(Element{*d, {}}, slot, 1.0);
  }
  return 1.0;
}

void Reader::read_actuator(pugi::xml_node node) {
  const Element e = element(node, "main");
  Actuator a;
  a.name = node.attribute("name").value();
  const std::string_view kind = node.name();
  a.type = kind == "position" ? ActuatorType::kPosition : kind == "velocity" ? ActuatorType::kVelocity : ActuatorType::kMotor;
  const Found joint = find(e, "joint");
  if (!joint) fail(node, "needs a joint (simgrad's actuators drive joints only)");
  a.joint = joint_index(joint);
  const JointType type = model_.joints[static_cast<std::size_t>(a.joint)].type;
  if (type == JointType::kBall || type == JointType::kFree) fail(joint, "actuators on ball and free joints are not supported");
  double gear[6] = {1.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  numbers(e, "gear", gear, false);  // a hinge or slide joint uses only the first component
  a.ctrl_limited = limited(e, "ctrllimited", "ctrlrange", a.ctrl_range);
  if (a.ctrl_limited && !(a.ctrl_range[0] < a.ctrl_range[1])) fail(find(e, "ctrlrange"), "the lower end must be below the upper");
  a.force_limited = limited(e, "forcelimited", "forcerange", a.force_range);
  if (a.force_limited && !(a.force_range[0] < a.force_range[1])) fail(find(e, "forcerange"), "the lower end must be below the upper");
  actuator_gear_.push_back(gear[0]);
  actuator_gain_.push_back(a.type == ActuatorType::kMotor ? 1.0 : actuator_gain(e, *this));
  model_.actuators.push_back(a);
}

void Reader::read_contact(pugi::xml_node node) {
  for_each_child(node, [&](pugi::xml_node child) {
    if (std::string_view(child.name()) != "exclude") return false;
    const Element e{child, {}};
    const Found body1 = find(e, "body1"), body2 = find(e, "body2");
    if (!body1 || !body2) fail(child, "needs body1 and body2");
    const int a = body_index(body1), b = body_index(body2);
    excluded_.emplace_back(std::min(a, b), std::max(a, b));
    return true;
  });
}

// A keyframe at qpos0, at rest, controls zero: what MuJoCo fills in for what a key leaves out.
Keyframe Reader::default_keyframe() const {
  Keyframe key;
  key.qpos = model_.qpos0;
  key.qvel.assign(static_cast<std::size_t>(model_.nv), 0.0);
  key.ctrl.assign(model_.actuators.size(), 0.0);
  return key;
}

void Reader::read_keyframes(pugi::xml_node node) {
  for_each_child(node, [&](pugi::xml_node child) {
    if (std::string_view(child.name()) != "key") return false;
    const Element e{child, {}};
    Keyframe key = default_keyframe();
    key.name = child.attribute("name").value();
    key.time = number(e, "time", 0.0);
    numbers(e, "qpos", key.qpos, true);
    numbers(e, "qvel", key.qvel, true);
    numbers(e, "ctrl", key.ctrl, true);
    model_.keyframes.push_back(std::move(key));
    return true;
  });
}

// MuJoCo's broad-phase filter (mj_collision): geoms of bodies welded together never touch, nor
// do those of a welded parent and child unless the parent is the world; then the contype /
// conaffinity bit test and the excluded body pairs.
void Reader::find_contact_pairs() {
  const auto welded_parent = [&](int weld) {
    return body_weld_[static_cast<std::size_t>(std::max(model_.bodies[static_cast<std::size_t>(weld)].parent, 0))];
  };
  for (std::size_t a = 0; a < model_.geoms.size(); ++a)
    for (std::size_t b = a + 1; b < model_.geoms.size(); ++b) {
      const Geom& ga = model_.geoms[a];
      const Geom& gb = model_.geoms[b];
      const int wa = body_weld_[static_cast<std::size_t>(ga.body)], wb = body_weld_[static_cast<std::size_t>(gb.body)];
      if (wa == wb) continue;
      if (wa != 0 && wb != 0 && (wa == welded_parent(wb) || wb == welded_parent(wa))) continue;
      if (!(ga.contype & gb.conaffinity) && !(gb.contype & ga.conaffinity)) continue;
      const std::pair<int, int> bodies(std::min(ga.body, gb.body), std::max(ga.body, gb.body));
      if (std::find(excluded_.begin(), excluded_.end(), bodies) != excluded_.end()) continue;
      // A pair that may touch but has no collision routine would pass through silently.
      if (options_.require_collisions && !collision_supported(ga.type, gb.type))
        fail(geom_nodes_[b], "may touch the geom on line " + std::to_string(line_of(geom_nodes_[a], line_starts_)) +
                                 ", and simgrad has no collision for this pair of shapes yet (supported: plane with any "
                                 "other shape; sphere with sphere, capsule or box; capsule with capsule or box; box "
                                 "with box or cylinder); exclude the "
                                 "pair (<contact><exclude>) or set contype/conaffinity so that they cannot touch");
      model_.contact_pairs.push_back({static_cast<int>(a), static_cast<int>(b)});
    }
}

void Reader::fill_tunables() {
  if (compiler_.total_mass > 0.0) {
    double total = 0.0;
    for (const double m : body_mass_) total += m;
    if (total > 0.0)
      for (double& m : body_mass_) m *= compiler_.total_mass / total;
  }
  model_.body_mass.assign(body_mass_, false);
  model_.dof_damping.assign(dof_damping_, false);
  model_.dof_armature.assign(dof_armature_, false);
  model_.joint_stiffness.assign(joint_stiffness_, false);
  model_.actuator_gear.assign(actuator_gear_, false);
  model_.actuator_gain.assign(actuator_gain_, false);
  model_.geom_friction.assign(geom_friction_, false);
  model_.set_default_contact();
  model_.resize(1, 0);
  model_.set_differentiable(false);
  model_.set_default_limits();
  model_.set_fluid_boxes();
}

RigidModel Reader::read() {
  const pugi::xml_node root = document_.document_element();
  if (std::string_view(root.name()) != "mujoco") fail(root, "an MJCF file's root element must be <mujoco>");
  admit(root);
  model_.name = root.attribute("model").value();
  // The compiler's settings (angle unit, Euler sequence) and the default classes apply to the
  // whole file wherever they stand; actuators, exclusions and keyframes name bodies and joints.
  std::vector<pugi::xml_node> worldbodies, later;
  for_each_child(root, [&](pugi::xml_node child) {
    const std::string_view kind = child.name();
    if (kind == "compiler") read_compiler(child);
    else if (kind == "default") read_default(child, "");
    else if (kind == "worldbody") worldbodies.push_back(child);
    else if (kind == "actuator" || kind == "contact" || kind == "keyframe" || kind == "option") later.push_back(child);
    else if (kind == "asset") for_each_child(child, [](pugi::xml_node) { return false; });
    else if (kind == "tendon") check_empty(child);
    else if (kind == "size") key_count_ = std::max(key_count_, integer(Element{child, {}}, "nkey", 0));
    else return false;
    return true;
  });
  read_worldbody(worldbodies);
  for (const pugi::xml_node node : later) {
    const std::string_view kind = node.name();
    if (kind == "option") read_option(node);
    else if (kind == "actuator") read_actuators(node);
    else if (kind == "contact") read_contact(node);
  }
  for (const pugi::xml_node node : later)
    if (std::string_view(node.name()) == "keyframe") read_keyframes(node);
  while (static_cast<int>(model_.keyframes.size()) < key_count_) model_.keyframes.push_back(default_keyframe());
  find_contact_pairs();
  fill_tunables();
  return std::move(model_);
}

}  // namespace mjcf

RigidModel parse_mjcf(std::string_view xml, const std::string& file_name_for_errors, const MjcfOptions& options) {
  return mjcf::Reader(xml, file_name_for_errors, options).read();
}

RigidModel load_mjcf(const std::filesystem::path& file, const MjcfOptions& options) {
  std::ifstream in(file, std::ios::binary);
  // No line to name: the file as a whole is line 0.
  if (!in) throw MjcfError(file.string() + ":0: cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_mjcf(text.str(), file.string(), options);
}

}  // namespace simgrad::rigid
