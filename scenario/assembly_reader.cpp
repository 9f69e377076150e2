#include "scenario/assembly_reader.hpp"

#include <string>
#include <vector>

#include "sims/assembly/plan.hpp"

namespace simgrad::scenario {

namespace as = simgrad::assembly;

namespace {

// Every field of `node` but the listed ones, through the plan's setters: one meaning per field,
// whichever way the machine is written.
template <class Thing>
void read_fields(const ScenarioNode& node, Thing& thing, std::initializer_list<std::string_view> taken) {
  for (const auto& [key, value] : node.members()) {
    bool skip = false;
    for (std::string_view t : taken) skip = skip || key == t;
    if (skip) continue;
    as::FieldValue v;
    if (value.json().is_string()) v.word = value.as_string();
    else if (value.json().is_array()) v.numbers = value.as_numbers();
    else v.numbers = {value.as_number()};
    try {
      as::set_field(thing, key, v);
    } catch (const as::AssemblyError& e) {
      node.fail(key, e.what());
    }
  }
}

as::Assembly read_graph(const ScenarioNode& node) {
  as::Assembly a;
  for (const ScenarioNode& element : node.array("parts")) {
    const ScenarioNode p = element.as_object();
    const auto type = as::part_type_of(p.choice("type", {"block", "rod", "wheel", "fin", "soft_pad", "soft_cell"}));
    a.parts.push_back({.name = p.string("name"), .type = *type});
    read_fields(p, a.parts.back(), {"name", "type"});
  }
  for (const ScenarioNode& element : node.optional_array("connections")) {
    const ScenarioNode c = element.as_object();
    const auto type = as::connection_type_of(c.choice("type", {"hinge", "slider", "ball", "fixed", "spring"}));
    a.connections.push_back({.name = c.string("name", c.string("child")), .type = *type, .parent = c.string("parent"),
                             .child = c.string("child")});
    read_fields(c, a.connections.back(), {"name", "type", "parent", "child"});
  }
  for (const ScenarioNode& element : node.optional_array("actuators")) {
    const ScenarioNode m = element.as_object();
    const auto type = as::actuator_type_of(m.choice("type", {"motor", "servo"}));
    a.actuators.push_back({.name = m.string("name"), .type = *type, .connection = m.string("connection")});
    read_fields(m, a.actuators.back(), {"name", "type", "connection"});
  }
  a.root = node.string("root", "");
  a.fixed_base = node.choice("base", {"free", "fixed"}, "free") == "fixed";
  if (node.has("start")) {
    const std::vector<double> s = node.numbers("start", 3);
    a.start = as::Vec3<double>{{s[0], s[1], s[2]}};
  }
  return a;
}

// The plan's lines, each a string; a parse error lands on its line of the scenario file.
as::Assembly read_plan(const ScenarioNode& model) {
  const std::vector<ScenarioNode> lines = model.array("plan");
  std::string text;
  for (const ScenarioNode& line : lines) {
    const std::string written = line.as_string();
    if (written.find_first_of("\n\r") != std::string::npos) line.fail("a plan's string holds one line; split it");
    text += written + "\n";
  }
  try {
    return as::parse_plan(text);
  } catch (const as::AssemblyError& e) {
    const std::string what = e.what();
    const std::size_t number = std::stoul(what.substr(what.find(' ', 5) + 1));
    lines.at(number - 1).fail(what.substr(what.find(": ") + 2));
  }
}

// A fixed or loose box of the environment.
as::WorldBox read_box(const ScenarioNode& node, bool loose) {
  as::WorldBox b{.name = node.string("name")};
  const std::vector<double> size = node.numbers("size", 3), at = node.numbers("at", 3);
  b.size = {{size[0], size[1], size[2]}};
  b.at = {{at[0], at[1], at[2]}};
  if (loose && node.has("mass")) b.mass = node.positive("mass");
  b.friction = node.non_negative("friction", b.friction);
  return b;
}

void read_environment(const ScenarioNode& node, as::Environment& e) {
  e.ground = node.boolean("ground", e.ground);
  for (const ScenarioNode& element : node.optional_array("obstacles")) e.obstacles.push_back(read_box(element.as_object(), false));
  for (const ScenarioNode& element : node.optional_array("loads")) e.loads.push_back(read_box(element.as_object(), true));
  if (node.has("gravity")) {
    const std::vector<double> g = node.numbers("gravity", 3);
    e.gravity = {{g[0], g[1], g[2]}};
  }
  e.density = node.non_negative("density", e.density);
  e.viscosity = node.non_negative("viscosity", e.viscosity);
}

}  // namespace

bool is_assembly(const ScenarioNode& model) { return model.has("assembly") || model.has("plan"); }

as::Assembly read_assembly(const ScenarioNode& model) {
  if (model.has("assembly") && model.has("plan")) model.fail("plan", "give the machine as \"assembly\" or as \"plan\", not both");
  as::Assembly a = model.has("plan") ? read_plan(model) : read_graph(model.child("assembly"));
  a.name = model.string("name", a.name);
  if (auto environment = model.optional_child("environment")) read_environment(*environment, a.environment);
  try {
    as::check(a);
  } catch (const as::AssemblyError& e) {
    model.fail(model.has("plan") ? "plan" : "assembly", e.what());
  }
  return a;
}

}  // namespace simgrad::scenario
