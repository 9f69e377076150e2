// Checking an assembly and compiling it to MJCF: one <body> per part, nested as the connections
// hang them, a joint per connection (none for a fixed one), an actuator per motor or servo.
#include "sims/assembly/assembly.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "sims/rigid/kinematics.hpp"
#include "sims/rigid/mjcf.hpp"

namespace simgrad::assembly {

namespace {

constexpr double kNodeRadius = 0.005;  // m: a soft node's contact sphere
constexpr double kAnchorStiffness = 4.0;  // an anchor spring's stiffness over the part's springs'
constexpr double kGroundStiffness = 10.0;  // a node's ground contact's stiffness over the part's springs'

constexpr std::array<const char*, 6> kPartNames = {"block", "rod", "wheel", "fin", "soft_pad", "soft_cell"};
constexpr std::array<const char*, 5> kConnectionNames = {"hinge", "slider", "ball", "fixed", "spring"};
constexpr std::array<const char*, 2> kActuatorNames = {"motor", "servo"};

// The index of `name` in `names`, as the enum E.
template <class E, std::size_t N>
std::optional<E> type_of(const std::array<const char*, N>& names, const std::string& name) {
  for (std::size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

[[noreturn]] void fail(const std::string& what) { throw AssemblyError(what); }

std::string in_quotes(const std::string& name) { return "\"" + name + "\""; }

double length_of(const Vec3<double>& v) { return std::sqrt(v.c[0] * v.c[0] + v.c[1] * v.c[1] + v.c[2] * v.c[2]); }

void check_part(const Part& p) {
  const std::string who = "part " + in_quotes(p.name);
  if (!(p.stiffness > 0.0) || !(p.damping >= 0.0) || !std::isfinite(p.stiffness + p.damping))
    fail(who + ": \"stiffness\" must be positive and \"damping\" non-negative");
  for (double s : p.size.c)
    if (!(s > 0.0) || !std::isfinite(s)) fail(who + ": every side of \"size\" must be positive");
  if (!(p.length > 0.0) || !(p.radius > 0.0) || !(p.width > 0.0) || !std::isfinite(p.length + p.radius + p.width))
    fail(who + ": \"length\", \"radius\" and \"width\" must be positive");
  if (p.mass && !(*p.mass > 0.0 && std::isfinite(*p.mass))) fail(who + ": \"mass\" must be positive");
  if (!(p.friction >= 0.0) || !std::isfinite(p.friction)) fail(who + ": \"friction\" must be non-negative");
  if (std::abs(length_of(p.direction) - 1.0) > 1e-9) fail(who + ": \"direction\" must be a unit vector");
}

}  // namespace

std::string number_text(double x) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, x).ptr;
  return std::string(text, end);
}

const char* part_type_name(PartType type) { return kPartNames[static_cast<std::size_t>(type)]; }
const char* connection_type_name(ConnectionType type) { return kConnectionNames[static_cast<std::size_t>(type)]; }
const char* actuator_type_name(ActuatorType type) { return kActuatorNames[static_cast<std::size_t>(type)]; }
std::optional<PartType> part_type_of(const std::string& name) { return type_of<PartType>(kPartNames, name); }
std::optional<ConnectionType> connection_type_of(const std::string& name) {
  return type_of<ConnectionType>(kConnectionNames, name);
}
std::optional<ActuatorType> actuator_type_of(const std::string& name) { return type_of<ActuatorType>(kActuatorNames, name); }

std::optional<Vec3<double>> named_point(const Part& part, const std::string& word) {
  if (word == "centre") {
    if (part.type == PartType::kRod) return (0.5 * part.length) * part.direction;
    if (part.type == PartType::kWheel) return Vec3<double>::zero();
    return -1.0 * part.child_at;
  }
  if (word == "end" && part.type == PartType::kRod) return part.length * part.direction;
  return std::nullopt;
}

namespace {

// A point of part `name`: `at` as numbers, or the point `word` names.
Vec3<double> part_point(const Assembly& a, const std::string& name, const Vec3<double>& at, const std::string& word) {
  if (word.empty()) return at;
  const auto part = std::find_if(a.parts.begin(), a.parts.end(), [&](const Part& p) { return p.name == name; });
  return *named_point(*part, word);
}

}  // namespace

Vec3<double> anchor(const Assembly& a, const Connection& c) { return part_point(a, c.parent, c.at, c.at_word); }

Vec3<double> spring_end(const Assembly& a, const Connection& c) { return part_point(a, c.child, c.to, c.to_word); }

void check(const Assembly& a) {
  if (a.parts.empty()) fail("the assembly has no parts");
  std::set<std::string> names;
  auto unique = [&names](const std::string& name, const char* what) {
    if (name.empty()) fail(std::string("a ") + what + " without a name");
    // Names become MJCF names and plan words: letters, digits, '_', '-' and '.' keep both plain.
    for (const char ch : name)
      if (std::isalnum(static_cast<unsigned char>(ch)) == 0 && ch != '_' && ch != '-' && ch != '.')
        fail(std::string(what) + " " + in_quotes(name) + ": a name is made of letters, digits, '_', '-' and '.'");
    if (!names.insert(name).second) fail(std::string(what) + " " + in_quotes(name) + ": the name is taken");
  };
  std::map<std::string, const Part*> parts;
  for (const Part& p : a.parts) {
    unique(p.name, "part");
    check_part(p);
    parts[p.name] = &p;
  }
  const std::string root = a.root.empty() ? a.parts.front().name : a.root;
  if (!parts.count(root)) fail("the root " + in_quotes(root) + " is not a part");
  if (is_soft(parts[root]->type)) fail("the root " + in_quotes(root) + " is soft; the root must be a rigid part");
  std::map<std::string, const Connection*> hung_by, connections;
  for (const Connection& c : a.connections) {
    unique(c.name, "connection");
    const std::string who = "connection " + in_quotes(c.name);
    if (!parts.count(c.parent)) fail(who + ": no part " + in_quotes(c.parent) + " to hang from");
    if (!parts.count(c.child)) fail(who + ": no part " + in_quotes(c.child) + " to hang");
    if (!c.at_word.empty() && !named_point(*parts[c.parent], c.at_word))
      fail(who + ": part " + in_quotes(c.parent) + " has no point " + in_quotes(c.at_word) +
           " (\"end\" is a rod's far end; \"centre\" any part's centre)");
    if (c.parent == c.child) fail(who + ": part " + in_quotes(c.child) + " is connected to itself");
    if (c.type == ConnectionType::kSpring) {
      if (!c.to_word.empty() && !named_point(*parts[c.child], c.to_word))
        fail(who + ": part " + in_quotes(c.child) + " has no point " + in_quotes(c.to_word) +
             " (\"end\" is a rod's far end; \"centre\" any part's centre)");
      for (const std::string& end : {c.parent, c.child})
        if (is_soft(parts[end]->type))
          fail(who + ": part " + in_quotes(end) + " is soft; a spring joins two rigid parts");
      if (!(c.stiffness > 0.0) || !(c.damping >= 0.0) || !std::isfinite(c.stiffness + c.damping))
        fail(who + ": a spring's \"stiffness\" must be positive and its \"damping\" non-negative");
      connections[c.name] = &c;
      continue;
    }
    if (c.child == root) fail(who + ": part " + in_quotes(c.child) + " is the root; nothing hangs the root");
    if (is_soft(parts[c.parent]->type))
      fail(who + ": part " + in_quotes(c.parent) + " is soft; soft parts carry nothing, hang " + in_quotes(c.child) +
           " from a rigid part");
    if (is_soft(parts[c.child]->type) && c.type != ConnectionType::kFixed)
      fail(who + ": soft part " + in_quotes(c.child) + " hangs by its own springs; mount it with a fixed connection");
    if (const auto [at, fresh] = hung_by.emplace(c.child, &c); !fresh)
      fail("part " + in_quotes(c.child) + " hangs from both " + in_quotes(at->second->parent) + " (connection " +
           in_quotes(at->second->name) + ") and " + in_quotes(c.parent) + " (connection " + in_quotes(c.name) +
           "): a closed loop over-constrains the machine; make one of them a spring");
    if ((c.type == ConnectionType::kHinge || c.type == ConnectionType::kSlider) && std::abs(length_of(c.axis) - 1.0) > 1e-9)
      fail(who + ": \"axis\" must be a unit vector");
    if (c.range && !(c.range->first < c.range->second)) fail(who + ": \"range\" must be [low, high] with low < high");
    if (!(c.stiffness >= 0.0) || !(c.damping >= 0.0) || !(c.armature >= 0.0))
      fail(who + ": \"stiffness\", \"damping\" and \"armature\" must be non-negative");
    connections[c.name] = &c;
  }
  // Every part hangs, through its parents, from the root; otherwise it is not part of the machine.
  for (const Part& p : a.parts) {
    std::string at = p.name;
    for (std::size_t hops = 0; at != root; ++hops) {
      const auto up = hung_by.find(at);
      if (up == hung_by.end() || hops > a.parts.size())
        fail("part " + in_quotes(p.name) + " is connected to nothing: no chain of connections reaches it from the root " +
             in_quotes(root));
      at = up->second->parent;
    }
  }
  for (const auto* boxes : {&a.environment.obstacles, &a.environment.loads})
    for (const WorldBox& b : *boxes) {
      const char* what = boxes == &a.environment.loads ? "load" : "obstacle";
      unique(b.name, what);
      const std::string who = std::string(what) + " " + in_quotes(b.name);
      if (!(b.size.c[0] > 0.0 && b.size.c[1] > 0.0 && b.size.c[2] > 0.0)) fail(who + ": \"size\" must be positive");
      if (b.mass && !(*b.mass > 0.0)) fail(who + ": \"mass\" must be positive");
      if (!(b.friction >= 0.0)) fail(who + ": \"friction\" must be non-negative");
    }
  std::map<std::string, std::string> driven;
  for (const Actuator& m : a.actuators) {
    unique(m.name, "actuator");
    const std::string who = std::string(actuator_type_name(m.type)) + " " + in_quotes(m.name);
    const auto c = connections.find(m.connection);
    if (c == connections.end()) fail(who + ": no connection " + in_quotes(m.connection) + " to drive");
    if (const auto [at, fresh] = driven.emplace(m.connection, m.name); !fresh)
      fail(who + ": connection " + in_quotes(m.connection) + " is already driven by " + in_quotes(at->second) +
           "; one actuator per joint");
    const ConnectionType t = c->second->type;
    if (t != ConnectionType::kHinge && t != ConnectionType::kSlider)
      fail(who + ": a " + connection_type_name(t) + " connection cannot be driven; put it on a hinge or slider");
    if (m.type == ActuatorType::kServo && !c->second->range)
      fail(who + ": a servo's targets span its joint's range; give connection " + in_quotes(m.connection) + " a \"range\"");
    if (!(m.strength > 0.0) || !(m.gain > 0.0)) fail(who + ": \"strength\" and \"gain\" must be positive");
  }
}

namespace {

// Numbers as an MJCF attribute.
std::string numbers(std::initializer_list<double> values) {
  std::string out;
  for (double v : values) {
    if (!out.empty()) out += ' ';
    out += number_text(v);
  }
  return out;
}
std::string numbers(const Vec3<double>& v) { return numbers({v.c[0], v.c[1], v.c[2]}); }

// The compiler of one assembly: the tree of parts, written depth first.
class MjcfWriter {
 public:
  explicit MjcfWriter(const Assembly& a) : a_(a) {
    for (const Part& p : a.parts) parts_[p.name] = &p;
    for (const Connection& c : a.connections)
      if (c.type != ConnectionType::kSpring) children_[c.parent].push_back(&c);
  }

  std::string write() {
    const Environment& e = a_.environment;
    out_ << "<mujoco model=\"" << a_.name << "\">\n"
         << "  <compiler angle=\"radian\" inertiafromgeom=\"true\"/>\n"
         << "  <option timestep=\"" << numbers({e.timestep}) << "\" gravity=\"" << numbers(e.gravity) << "\" density=\""
         << numbers({e.density}) << "\" viscosity=\"" << numbers({e.viscosity}) << "\"/>\n"
         << "  <worldbody>\n";
    if (e.ground) out_ << "    <geom name=\"ground\" type=\"plane\" size=\"50 50 0.1\" contype=\"1\" conaffinity=\"1\"/>\n";
    const Part& root = *parts_.at(a_.root.empty() ? a_.parts.front().name : a_.root);
    out_ << "    <body name=\"" << root.name << "\" pos=\"" << numbers(a_.start.value_or(standing_start(root))) << "\">\n";
    if (!a_.fixed_base) out_ << "      <freejoint name=\"" << root.name << "\"/>\n";
    write_part(root, nullptr, "      ");
    out_ << "    </body>\n";
    for (const WorldBox& b : e.obstacles) out_ << "    " << box_geom(b, true) << "\n";
    for (const WorldBox& b : e.loads)
      out_ << "    <body name=\"" << b.name << "\" pos=\"" << numbers(b.at) << "\">\n      <freejoint name=\"" << b.name
           << "\"/>\n      " << box_geom(b, false) << "\n    </body>\n";
    out_ << "  </worldbody>\n";
    if (!a_.actuators.empty()) {
      out_ << "  <actuator>\n";
      for (const Actuator& m : a_.actuators) write_actuator(m);
      out_ << "  </actuator>\n";
    }
    out_ << "</mujoco>\n";
    return out_.str();
  }

 private:
  // The part's shape, then its children, each in its own <body>.
  void write_part(const Part& p, const Connection* hung_by, const std::string& indent) {
    out_ << indent << "<geom name=\"" << p.name << "\" " << shape(p, hung_by) << " friction=\"" << numbers({p.friction})
         << "\" contype=\"1\" conaffinity=\"0\"";
    if (p.mass) out_ << " mass=\"" << numbers({*p.mass}) << "\"";
    out_ << "/>\n";
    for (const Connection* c : children_[p.name]) {
      const Part& child = *parts_.at(c->child);
      if (is_soft(child.type)) continue;
      out_ << indent << "<body name=\"" << child.name << "\" pos=\"" << numbers(anchor(a_, *c)) << "\">\n";
      write_joint(*c, indent + "  ");
      write_part(child, c, indent + "  ");
      out_ << indent << "</body>\n";
    }
  }

  // A world box's geom: a fixed one placed in the world, a loose one at its body's origin. Both
  // touch the parts (conaffinity 1); loose ones also the ground, the fixed boxes and each other.
  static std::string box_geom(const WorldBox& b, bool fixed) {
    std::string geom = "<geom name=\"" + b.name + "\" type=\"box\" size=\"" + numbers(0.5 * b.size) + "\"";
    if (fixed) geom += " pos=\"" + numbers(b.at) + "\"";
    if (b.mass) geom += " mass=\"" + numbers({*b.mass}) + "\"";
    return geom + " friction=\"" + numbers({b.friction}) + "\" contype=\"1\" conaffinity=\"1\"/>";
  }

  // The geom's type and placement in the part's frame.
  static std::string shape(const Part& p, const Connection* hung_by) {
    switch (p.type) {
      case PartType::kRod:
        return "type=\"capsule\" size=\"" + numbers({p.radius}) + "\" fromto=\"0 0 0 " + numbers(p.length * p.direction) + "\"";
      case PartType::kWheel: {
        const Vec3<double> axle = hung_by != nullptr ? hung_by->axis : Vec3<double>{{0.0, 1.0, 0.0}};
        return "type=\"cylinder\" size=\"" + numbers({p.radius}) + "\" fromto=\"" + numbers((-0.5 * p.width) * axle) + " " +
               numbers((0.5 * p.width) * axle) + "\"";
      }
      default:
        return "type=\"box\" size=\"" + numbers(0.5 * p.size) + "\" pos=\"" + numbers(-1.0 * p.child_at) + "\"";
    }
  }

  void write_joint(const Connection& c, const std::string& indent) {
    if (c.type == ConnectionType::kFixed) return;
    const char* type = c.type == ConnectionType::kHinge ? "hinge" : c.type == ConnectionType::kSlider ? "slide" : "ball";
    out_ << indent << "<joint name=\"" << c.name << "\" type=\"" << type << "\"";
    if (c.type != ConnectionType::kBall) out_ << " axis=\"" << numbers(c.axis) << "\"";
    if (c.range) out_ << " limited=\"true\" range=\"" << numbers({c.range->first, c.range->second}) << "\"";
    out_ << " stiffness=\"" << numbers({c.stiffness}) << "\" damping=\"" << numbers({c.damping}) << "\" armature=\""
         << numbers({c.armature}) << "\"/>\n";
  }

  void write_actuator(const Actuator& m) {
    const Connection& c = *std::find_if(a_.connections.begin(), a_.connections.end(),
                                        [&](const Connection& k) { return k.name == m.connection; });
    if (m.type == ActuatorType::kMotor) {
      out_ << "    <motor name=\"" << m.name << "\" joint=\"" << c.name << "\" gear=\"" << numbers({m.strength})
           << "\" ctrllimited=\"true\" ctrlrange=\"-1 1\"/>\n";
      return;
    }
    out_ << "    <position name=\"" << m.name << "\" joint=\"" << c.name << "\" kp=\"" << numbers({m.gain})
         << "\" ctrllimited=\"true\" ctrlrange=\"" << numbers({c.range->first, c.range->second})
         << "\" forcelimited=\"true\" forcerange=\"" << numbers({-m.strength, m.strength}) << "\"/>\n";
  }

  // The root's origin that puts the machine's lowest point on the ground (1 mm above it).
  Vec3<double> standing_start(const Part& root) {
    double lowest = std::numeric_limits<double>::infinity();
    lowest_point(root, nullptr, Vec3<double>::zero(), lowest);
    return {{0.0, 0.0, 0.001 - lowest}};
  }

  // The lowest height of part p's shape and its children's, its origin at `origin`.
  void lowest_point(const Part& p, const Connection* hung_by, const Vec3<double>& origin, double& lowest) {
    double low = 0.0;
    switch (p.type) {
      case PartType::kRod:
        low = origin.c[2] + std::min(0.0, p.length * p.direction.c[2]) - p.radius;
        break;
      case PartType::kWheel: {
        const double z = hung_by != nullptr ? hung_by->axis.c[2] : 0.0;
        low = origin.c[2] - p.radius * std::sqrt(std::max(0.0, 1.0 - z * z)) - 0.5 * p.width * std::abs(z);
        break;
      }
      default:
        low = origin.c[2] - p.child_at.c[2] - 0.5 * p.size.c[2] - (is_soft(p.type) ? kNodeRadius : 0.0);
    }
    lowest = std::min(lowest, low);
    for (const Connection* c : children_[p.name]) lowest_point(*parts_.at(c->child), c, origin + anchor(a_, *c), lowest);
  }

  const Assembly& a_;
  std::map<std::string, const Part*> parts_;
  std::map<std::string, std::vector<const Connection*>> children_;
  std::ostringstream out_;
};

}  // namespace

std::string to_mjcf(const Assembly& assembly) { return MjcfWriter(assembly).write(); }

namespace {

// Adds soft part p, mounted on body `body` with its origin at `origin` of that body's frame: its
// lattice of nodes, the springs along its cells' edges and diagonals, the anchors of its top layer.
void add_soft_part(const Part& p, int body, const Vec3<double>& origin, rigid::RigidModel& m) {
  const int nx = 3, ny = 3, nz = p.type == PartType::kSoftPad ? 2 : 3;
  const int first = static_cast<int>(m.soft_nodes.size());
  const double volume = p.size.c[0] * p.size.c[1] * p.size.c[2];
  const double node_mass = p.mass.value_or(1000.0 * volume) / (nx * ny * nz);
  auto index = [&](int i, int j, int k) { return first + (k * ny + j) * nx + i; };
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const Vec3<double> local{{(i / (nx - 1.0) - 0.5) * p.size.c[0], (j / (ny - 1.0) - 0.5) * p.size.c[1],
                                  (k / (nz - 1.0) - 0.5) * p.size.c[2]}};
        const Vec3<double> point = origin - p.child_at + local;
        m.soft_nodes.push_back({.body = body, .point = point, .mass = node_mass, .radius = kNodeRadius,
                                .contact_stiffness = kGroundStiffness * p.stiffness,
                                .contact_damping = kGroundStiffness * p.damping});
        if (k == nz - 1)
          m.soft_anchors.push_back({.node = index(i, j, k), .body = body, .point = point,
                                    .stiffness = kAnchorStiffness * p.stiffness, .damping = kAnchorStiffness * p.damping});
      }
  // Within each cell of the lattice, every pair of its corners: edges, face and body diagonals;
  // an edge shared by neighbouring cells is joined once.
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (int dk = 0; dk <= 1; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di) {
              // Each unordered pair once: the neighbour comes later in (k, j, i) order.
              if (dk == 0 && (dj < 0 || (dj == 0 && di <= 0))) continue;
              const int i2 = i + di, j2 = j + dj, k2 = k + dk;
              if (i2 < 0 || i2 >= nx || j2 < 0 || j2 >= ny || k2 >= nz) continue;
              const int a = index(i, j, k), b = index(i2, j2, k2);
              const Vec3<double> d = m.soft_nodes[static_cast<std::size_t>(b)].point - m.soft_nodes[static_cast<std::size_t>(a)].point;
              m.soft_springs.push_back({.a = a, .b = b, .length = length_of(d), .stiffness = p.stiffness, .damping = p.damping});
            }
}

// Each body spring's rest length: the distance between its ends at the start (qpos0).
void set_spring_lengths(rigid::RigidModel& m) {
  if (m.body_springs.empty()) return;
  const rigid::RigidTree tree(m);
  rigid::RigidWorkspace<double> w;
  w.resize(tree);
  rigid::forward_kinematics(m, m.qpos0.data(), w);
  for (rigid::BodySpring& s : m.body_springs)
    s.length = length_of(rigid::world_point(w, s.body_b, s.point_b) - rigid::world_point(w, s.body_a, s.point_a));
}

}  // namespace

rigid::RigidModel build(const Assembly& assembly) {
  check(assembly);
  rigid::RigidModel m;
  try {
    m = rigid::parse_mjcf(to_mjcf(assembly), "assembly " + assembly.name);
  } catch (const rigid::MjcfError& e) {
    // The text is well formed by construction; what the reader refuses is a value (a part so
    // thin or light that its inertia is singular, say).
    throw AssemblyError(std::string("the machine does not compile: ") + e.what());
  }
  const auto body_of = [&m](const std::string& part) {
    return static_cast<int>(std::find_if(m.bodies.begin(), m.bodies.end(), [&](const rigid::Body& b) { return b.name == part; }) -
                            m.bodies.begin());
  };
  std::vector<double> spring_stiffness;
  for (const Connection& c : assembly.connections) {
    if (c.type == ConnectionType::kSpring) {
      m.body_springs.push_back({.body_a = body_of(c.parent), .body_b = body_of(c.child), .point_a = anchor(assembly, c),
                                .point_b = spring_end(assembly, c), .damping = c.damping});
      spring_stiffness.push_back(c.stiffness);
      continue;
    }
    const auto child = std::find_if(assembly.parts.begin(), assembly.parts.end(), [&](const Part& p) { return p.name == c.child; });
    if (is_soft(child->type)) add_soft_part(*child, body_of(c.parent), anchor(assembly, c), m);
  }
  m.spring_stiffness.assign(spring_stiffness, false);
  set_spring_lengths(m);
  if (!m.soft_nodes.empty())
    for (std::size_t g = 0; g < m.geoms.size(); ++g)
      if (m.geoms[g].type == rigid::GeomType::kPlane) m.soft_ground.push_back(static_cast<int>(g));
  return m;
}

}  // namespace simgrad::assembly
