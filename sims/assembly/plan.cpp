#include "sims/assembly/plan.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

namespace simgrad::assembly {

namespace {

[[noreturn]] void fail(const std::string& what) { throw AssemblyError(what); }

double number(const std::string& key, const FieldValue& v) {
  if (v.numbers.size() != 1) fail("\"" + key + "\" expects one number");
  return v.numbers[0];
}

Vec3<double> vec3(const std::string& key, const FieldValue& v) {
  if (v.numbers.size() != 3) fail("\"" + key + "\" expects three numbers x,y,z");
  return {{v.numbers[0], v.numbers[1], v.numbers[2]}};
}

std::pair<double, double> range(const std::string& key, const FieldValue& v) {
  if (v.numbers.size() != 2) fail("\"" + key + "\" expects two numbers low,high");
  return {v.numbers[0], v.numbers[1]};
}

std::string text(double x) { return number_text(x); }
std::string text(const Vec3<double>& v) { return text(v.c[0]) + "," + text(v.c[1]) + "," + text(v.c[2]); }

// A value as written after '=': a word, or numbers separated by commas.
FieldValue parse_value(const std::string& key, const std::string& written) {
  FieldValue v;
  if (!written.empty() && (std::isalpha(static_cast<unsigned char>(written[0])) != 0)) {
    v.word = written;
    return v;
  }
  std::size_t start = 0;
  while (start <= written.size()) {
    const std::size_t end = std::min(written.find(',', start), written.size());
    double x = 0.0;
    const char* first = written.data() + start;
    const char* last = written.data() + end;
    const auto [ptr, ec] = std::from_chars(first, last, x);
    if (ec != std::errc() || ptr != last || first == last || !std::isfinite(x))
      fail("\"" + key + "\": \"" + written + "\" is not a number or a list of numbers");
    v.numbers.push_back(x);
    start = end + 1;
  }
  return v;
}

}  // namespace

void set_field(Part& p, const std::string& key, const FieldValue& v) {
  if (key == "size") p.size = vec3(key, v);
  else if (key == "length") p.length = number(key, v);
  else if (key == "radius") p.radius = number(key, v);
  else if (key == "width") p.width = number(key, v);
  else if (key == "direction") p.direction = vec3(key, v);
  else if (key == "child_at") p.child_at = vec3(key, v);
  else if (key == "mass") p.mass = number(key, v);
  else if (key == "friction") p.friction = number(key, v);
  else if (key == "stiffness") p.stiffness = number(key, v);
  else if (key == "damping") p.damping = number(key, v);
  else fail("a part has no field \"" + key + "\"; expected size, length, radius, width, direction, child_at, mass, friction, "
            "stiffness or damping");
}

void set_field(Connection& c, const std::string& key, const FieldValue& v) {
  if (key == "at") {
    if (v.word.empty()) c.at = vec3(key, v);
    c.at_word = v.word;
  } else if (key == "to") {
    if (v.word.empty()) c.to = vec3(key, v);
    c.to_word = v.word;
  } else if (key == "axis") c.axis = vec3(key, v);
  else if (key == "range") c.range = range(key, v);
  else if (key == "stiffness") c.stiffness = number(key, v);
  else if (key == "damping") c.damping = number(key, v);
  else if (key == "armature") c.armature = number(key, v);
  else fail("a connection has no field \"" + key + "\"; expected at, to, axis, range, stiffness, damping or armature");
}

void set_field(Actuator& m, const std::string& key, const FieldValue& v) {
  if (key == "strength") m.strength = number(key, v);
  else if (key == "gain") m.gain = number(key, v);
  else fail("an actuator has no field \"" + key + "\"; expected strength or gain");
}

Assembly parse_plan(std::string_view plan) {
  Assembly a;
  std::istringstream lines{std::string(plan)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    try {
      line = line.substr(0, line.find('#'));
      std::istringstream words(line);
      std::string kind, name;
      if (!(words >> kind)) continue;
      if (!(words >> name)) fail("\"" + kind + "\" expects a name (or a value) after it");
      // Sets every key=value that follows on the line.
      auto fields = [&](auto& thing) {
        for (std::string word; words >> word;) {
          const std::size_t eq = word.find('=');
          if (eq == std::string::npos || eq == 0) fail("expected key=value, found \"" + word + "\"");
          const std::string key = word.substr(0, eq);
          set_field(thing, key, parse_value(key, word.substr(eq + 1)));
        }
      };
      if (kind == "root") {
        a.root = name;
      } else if (kind == "base") {
        if (name != "free" && name != "fixed") fail("\"base\" is free or fixed, not \"" + name + "\"");
        a.fixed_base = name == "fixed";
      } else if (kind == "start") {
        a.start = vec3("start", parse_value("start", name));
      } else if (const auto part = part_type_of(kind)) {
        a.parts.push_back({.name = name, .type = *part});
        fields(a.parts.back());
      } else if (const auto joint = connection_type_of(kind)) {
        std::string ends;
        words >> ends;
        const std::size_t gt = ends.find('>');
        if (gt == std::string::npos || gt == 0 || gt + 1 == ends.size())
          fail("connection \"" + name + "\" expects PARENT>CHILD after its name");
        a.connections.push_back({.name = name, .type = *joint, .parent = ends.substr(0, gt), .child = ends.substr(gt + 1)});
        fields(a.connections.back());
      } else if (const auto actuator = actuator_type_of(kind)) {
        std::string connection;
        if (!(words >> connection)) fail(kind + " \"" + name + "\" expects the connection it drives after its name");
        a.actuators.push_back({.name = name, .type = *actuator, .connection = connection});
        fields(a.actuators.back());
      } else {
        fail("\"" + kind + "\" is not a part (block, rod, wheel, fin, soft_pad, soft_cell), a connection (hinge, slider, "
             "ball, fixed, spring), an actuator (motor, servo) or a setting (root, base, start)");
      }
    } catch (const AssemblyError& e) {
      throw AssemblyError("plan line " + std::to_string(number) + ": " + e.what());
    }
  }
  return a;
}

std::string to_plan(const Assembly& a) {
  std::ostringstream out;
  for (const Part& p : a.parts) {
    out << part_type_name(p.type) << " " << p.name;
    if (p.type == PartType::kRod)
      out << " length=" << text(p.length) << " radius=" << text(p.radius) << " direction=" << text(p.direction);
    else if (p.type == PartType::kWheel)
      out << " radius=" << text(p.radius) << " width=" << text(p.width);
    else
      out << " size=" << text(p.size) << " child_at=" << text(p.child_at);
    if (is_soft(p.type)) out << " stiffness=" << text(p.stiffness) << " damping=" << text(p.damping);
    if (p.mass) out << " mass=" << text(*p.mass);
    out << " friction=" << text(p.friction) << "\n";
  }
  for (const Connection& c : a.connections) {
    out << connection_type_name(c.type) << " " << c.name << " " << c.parent << ">" << c.child
        << " at=" << (c.at_word.empty() ? text(c.at) : c.at_word) << " axis=" << text(c.axis);
    if (c.type == ConnectionType::kSpring) out << " to=" << (c.to_word.empty() ? text(c.to) : c.to_word);
    if (c.range) out << " range=" << text(c.range->first) << "," << text(c.range->second);
    out << " stiffness=" << text(c.stiffness) << " damping=" << text(c.damping) << " armature=" << text(c.armature) << "\n";
  }
  for (const Actuator& m : a.actuators)
    out << actuator_type_name(m.type) << " " << m.name << " " << m.connection << " strength=" << text(m.strength)
        << " gain=" << text(m.gain) << "\n";
  if (!a.root.empty()) out << "root " << a.root << "\n";
  if (a.fixed_base) out << "base fixed\n";
  if (a.start) out << "start " << text(*a.start) << "\n";
  return out.str();
}

}  // namespace simgrad::assembly
