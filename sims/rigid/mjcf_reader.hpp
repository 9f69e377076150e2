// The MJCF reader's state and helpers, shared by mjcf.cpp (the document, error messages, default
// classes, attribute parsing, the model-wide elements) and mjcf_bodies.cpp (the kinematic tree:
// bodies, joints, geoms, sites, masses). Internal to load_mjcf; not part of the API.
#pragma once

#include <pugixml.hpp>

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sims/rigid/mjcf.hpp"
#include "sims/rigid/mjcf_geometry.hpp"

namespace simgrad::rigid::mjcf {

enum class InertiaFromGeom { kFalse, kTrue, kAuto };

// What <compiler> says; MuJoCo's defaults but for autolimits (see mjcf.hpp).
struct Compiler {
  bool degree = true;
  std::string euler_sequence = "xyz";
  InertiaFromGeom inertia_from_geom = InertiaFromGeom::kAuto;
  double total_mass = -1.0;  // settotalmass; <= 0: keep the masses
  bool autolimits = true;
};

// An element with the default-class entries that stand behind it, outermost class first.
struct Element {
  pugi::xml_node node;
  std::vector<pugi::xml_node> defaults;
};

// An attribute with the element that holds it: the element itself or one of its defaults.
struct Found {
  pugi::xml_node holder;
  pugi::xml_attribute attribute;
  explicit operator bool() const { return static_cast<bool>(attribute); }
};

// One default class: its parent ("" for main) and its entries by kind (joint, geom, site,
// actuator), in document order.
struct DefaultClass {
  std::string parent;
  std::map<std::string, std::vector<pugi::xml_node>, std::less<>> entries;
};

// A geom's share of its body's mass: MuJoCo's geom mass, frame and principal inertia.
struct GeomMass {
  double mass = 0.0;
  Vec3<double> pos = Vec3<double>::zero();
  Quat<double> quat{{1.0, 0.0, 0.0, 0.0}};
  Vec3<double> principal = Vec3<double>::zero();
};

// A shape's pose and MuJoCo sizes (geoms and sites share how they are placed).
struct Shape {
  GeomType type = GeomType::kSphere;
  double size[3] = {0.0, 0.0, 0.0};
  Vec3<double> pos = Vec3<double>::zero();
  Quat<double> quat{{1.0, 0.0, 0.0, 0.0}};
};

class Reader {
 public:
  Reader(std::string_view xml, std::string file, const MjcfOptions& options);
  RigidModel read();

  // Errors: "FILE:LINE: <element>: what" and "FILE:LINE: <element> attribute 'a': what".
  [[noreturn]] void fail(pugi::xml_node node, const std::string& what) const;
  [[noreturn]] void fail(pugi::xml_node node, std::string_view attribute, const std::string& what) const;
  [[noreturn]] void fail(const Found& at, const std::string& what) const;

  // Checks an element and its attributes against the schema; false when it is to be skipped
  // (visual with ignore_visual, or ignored by MuJoCo's simulation too).
  bool admit(pugi::xml_node node) const;
  // Calls `handle` on each admitted child element; a false return means it cannot be there.
  void for_each_child(pugi::xml_node node, const std::function<bool(pugi::xml_node)>& handle) const;

  // The element with its defaults: its own class, else `inherited_class`.
  Element element(pugi::xml_node node, const std::string& inherited_class) const;
  // An existing class named by `attribute` of node, else `fallback`.
  std::string class_attribute(pugi::xml_node node, const char* attribute, const std::string& fallback) const;

  // Attribute values: the element's own, else its innermost default's.
  Found find(const Element& e, const char* name) const;
  double number(const Element& e, const char* name, double fallback) const;
  // Overlays the listed numbers on `values`, outermost default first, as MuJoCo reads a partial
  // list (size="0.1" keeps the default's second size); exact: exactly values.size() numbers.
  bool numbers(const Element& e, const char* name, std::span<double> values, bool exact) const;
  Vec3<double> vec3(const Element& e, const char* name, const Vec3<double>& fallback) const;
  int integer(const Element& e, const char* name, int fallback) const;
  std::string word(const Element& e, const char* name, const std::string& fallback) const;
  bool boolean(const Element& e, const char* name, bool fallback) const;
  // true, false or auto (-1 when absent or auto).
  int tristate(const Element& e, const char* name) const;
  // Whether a range is limited: `limited` attribute, else autolimits (range given or not).
  bool limited(const Element& e, const char* limited_name, const char* range_name, std::span<double, 2> range) const;
  // The frame rotation from quat, euler, axisangle, xyaxes or zaxis (at most one of them).
  Quat<double> orientation(const Element& e) const;
  // Where a geom or site sits, and its sizes (fromto included).
  Shape shape(const Element& e, bool site) const;

  // The kinematic tree (mjcf_bodies.cpp).
  void read_worldbody(std::span<const pugi::xml_node> worldbodies);

 private:
  void read_compiler(pugi::xml_node node);
  void read_option(pugi::xml_node node);
  void read_default(pugi::xml_node node, const std::string& parent);
  void read_actuators(pugi::xml_node node);
  void read_actuator(pugi::xml_node node);
  void read_contact(pugi::xml_node node);
  void read_keyframes(pugi::xml_node node);
  Keyframe default_keyframe() const;
  void check_empty(pugi::xml_node node) const;
  void find_contact_pairs();
  void fill_tunables();
  int body_index(const Found& name) const;
  int joint_index(const Found& name) const;
  std::vector<double> parse_numbers(const Found& at) const;

  // mjcf_bodies.cpp
  void read_body(std::span<const pugi::xml_node> nodes, int parent, const std::string& inherited_class);
  // A body's name and frame, appended to the model.
  void add_body(pugi::xml_node node, int parent);
  // The body's joints (into the model); its <inertial> returned, geoms, sites and bodies listed.
  pugi::xml_node read_joints(std::span<const pugi::xml_node> nodes, int body, const std::string& child_class,
                             std::vector<pugi::xml_node>& children);
  void read_joint(const Element& e, int body, bool free);
  void add_joint_coordinates(const Element& e, const Joint& joint, int body);
  void read_geom(const Element& e, int body, bool infer_mass, std::vector<GeomMass>& masses);
  double geom_mass(const Element& e, const Shape& shape) const;
  void read_site(const Element& e, int body);
  void read_mass(pugi::xml_node body_node, pugi::xml_node inertial, const std::vector<GeomMass>& masses, int body);
  void mass_from_geoms(pugi::xml_node body_node, const std::vector<GeomMass>& masses, int body);
  void mass_from_inertial(pugi::xml_node inertial, int body);
  void check_moving_body(pugi::xml_node body_node, int body) const;
  void check_joint_order(pugi::xml_node body_node, int body) const;

  std::string file_;
  pugi::xml_document document_;
  std::vector<std::size_t> line_starts_;
  MjcfOptions options_;
  Compiler compiler_;
  std::map<std::string, DefaultClass, std::less<>> classes_;

  RigidModel model_;
  // Built up as the tree is read, turned into the tunable arrays at the end.
  std::vector<double> body_mass_, dof_damping_, dof_armature_, joint_stiffness_;
  std::vector<double> actuator_gear_, actuator_gain_, geom_friction_;
  std::vector<int> body_weld_;  // MuJoCo's weldid: the body this one is welded to (0: the world)
  std::vector<pugi::xml_node> geom_nodes_;  // per geom, its element (for errors about pairs)
  std::vector<std::pair<int, int>> excluded_;
  int key_count_ = 0;  // <size nkey>: keyframes at least, the rest at qpos0 and rest
};

}  // namespace simgrad::rigid::mjcf
