// The kinematic tree of an MJCF file: bodies in MuJoCo's order (depth first, parents before
// children), each body's joints, geoms and sites, and its mass, centre and inertia as MuJoCo's
// compiler computes them.
#include <algorithm>
#include <numbers>
#include <optional>

#include "sims/rigid/mjcf_reader.hpp"

namespace simgrad::rigid::mjcf {

static constexpr double kDegree = std::numbers::pi / 180.0;

void Reader::read_worldbody(std::span<const pugi::xml_node> worldbodies) {
  model_.bodies.push_back(Body{.name = "world"});
  body_mass_.push_back(0.0);
  body_weld_.push_back(0);
  for (const pugi::xml_node node : worldbodies)
    for (const pugi::xml_attribute a : node.attributes()) fail(node, a.name(), "not supported on <worldbody>");
  read_body(worldbodies, -1, "main");
}

void Reader::add_body(pugi::xml_node node, int parent) {
  const Element e{node, {}};
  Body b{.name = node.attribute("name").value(), .parent = parent};
  for (const Body& other : model_.bodies)
    if (!b.name.empty() && other.name == b.name) fail(node, "name", "body name '" + b.name + "' is used twice");
  b.pos = vec3(e, "pos", Vec3<double>::zero());
  b.quat = orientation(e);
  model_.bodies.push_back(b);
  body_mass_.push_back(0.0);
}

pugi::xml_node Reader::read_joints(std::span<const pugi::xml_node> nodes, int body, const std::string& child_class,
                                   std::vector<pugi::xml_node>& children) {
  const bool world = body == 0;
  pugi::xml_node inertial;
  model_.bodies[static_cast<std::size_t>(body)].first_joint = static_cast<int>(model_.joints.size());
  for (const pugi::xml_node n : nodes)
    for_each_child(n, [&](pugi::xml_node child) {
      const std::string_view kind = child.name();
      if (kind == "joint" || kind == "freejoint") {
        if (world) fail(child, "a joint cannot be attached to the world body: put it inside a <body>");
        read_joint(kind == "joint" ? element(child, child_class) : Element{child, {}}, body, kind == "freejoint");
      } else if (kind == "inertial" && !world) {
        if (inertial) fail(child, "a body has at most one <inertial>");
        inertial = child;
      } else if (kind == "geom" || kind == "site" || kind == "body") {
        children.push_back(child);
      } else {
        return false;
      }
      return true;
    });
  Body& b = model_.bodies[static_cast<std::size_t>(body)];
  b.joint_count = static_cast<int>(model_.joints.size()) - b.first_joint;
  return inertial;
}

void Reader::read_body(std::span<const pugi::xml_node> nodes, int parent, const std::string& inherited_class) {
  const bool world = parent < 0;
  const pugi::xml_node node = world ? pugi::xml_node() : nodes.front();
  if (!world) add_body(node, parent);
  const int id = static_cast<int>(model_.bodies.size()) - 1;
  const std::string child_class = world ? inherited_class : class_attribute(node, "childclass", inherited_class);
  // Joints first: where planes may be depends on whether the body moves.
  std::vector<pugi::xml_node> children;
  const pugi::xml_node inertial = read_joints(nodes, id, child_class, children);
  if (!world) {
    check_joint_order(node, id);
    const bool moves = model_.bodies[static_cast<std::size_t>(id)].joint_count > 0;
    body_weld_.push_back(moves ? id : body_weld_[static_cast<std::size_t>(parent)]);
  }
  const bool infer_mass = !world && (compiler_.inertia_from_geom == InertiaFromGeom::kTrue ||
                                     (compiler_.inertia_from_geom == InertiaFromGeom::kAuto && !inertial));
  std::vector<GeomMass> masses;
  for (const pugi::xml_node child : children) {
    const std::string_view kind = child.name();
    if (kind == "geom") read_geom(element(child, child_class), id, infer_mass, masses);
    if (kind == "site") read_site(element(child, child_class), id);
  }
  if (!world) read_mass(node, inertial, masses, id);
  for (const pugi::xml_node child : children)
    if (std::string_view(child.name()) == "body") read_body(std::span(&child, 1), id, child_class);
}

// MuJoCo's rules for the joints of one body: at most 6 degrees of freedom, no rotation after a
// ball joint.
void Reader::check_joint_order(pugi::xml_node body_node, int body) const {
  const Body& b = model_.bodies[static_cast<std::size_t>(body)];
  int dofs = 0;
  bool ball = false;
  for (int j = b.first_joint; j < b.first_joint + b.joint_count; ++j) {
    const JointType type = model_.joints[static_cast<std::size_t>(j)].type;
    dofs += velocity_count(type);
    if (ball && (type == JointType::kBall || type == JointType::kHinge)) fail(body_node, "a ball joint is followed by a rotation");
    ball = ball || type == JointType::kBall;
  }
  if (dofs > 6) fail(body_node, "more than 6 degrees of freedom in one body");
}

// The joint's type from its `type` attribute.
static std::optional<JointType> joint_type(std::string_view name) {
  if (name == "hinge") return JointType::kHinge;
  if (name == "slide") return JointType::kSlide;
  if (name == "ball") return JointType::kBall;
  if (name == "free") return JointType::kFree;
  return std::nullopt;
}

void Reader::read_joint(const Element& e, int body, bool free) {
  Joint j;
  j.name = e.node.attribute("name").value();
  for (const Joint& other : model_.joints)
    if (!j.name.empty() && other.name == j.name) fail(e.node, "name", "joint name '" + j.name + "' is used twice");
  j.body = body;
  const Found type = find(e, "type");
  const std::optional<JointType> t = free ? JointType::kFree : joint_type(type ? type.attribute.value() : "hinge");
  if (!t) fail(type, "expects hinge, slide, ball or free");
  j.type = *t;
  const bool rotation = j.type == JointType::kHinge || j.type == JointType::kBall;
  if (j.type != JointType::kFree) {
    j.limited = limited(e, "limited", "range", j.range);
    if (j.limited && j.type != JointType::kBall && !(j.range[0] < j.range[1]))
      fail(find(e, "range"), "the lower end must be below the upper");
    if (j.limited && j.type == JointType::kBall && j.range[0] != 0.0) fail(find(e, "range"), "must start at 0 for a ball joint");
    if (j.limited && rotation && compiler_.degree) j.range[0] *= kDegree, j.range[1] *= kDegree;
    j.pos = vec3(e, "pos", j.pos);
  }
  if (j.type == JointType::kHinge || j.type == JointType::kSlide) {
    try {
      j.axis = unit(vec3(e, "axis", j.axis), "the axis");
    } catch (const std::invalid_argument& error) {
      fail(find(e, "axis"), error.what());
    }
  }
  const double angle = j.type == JointType::kHinge && compiler_.degree ? kDegree : 1.0;
  j.spring_reference = angle * number(e, "springref", 0.0);
  j.qpos_address = model_.nq;
  j.dof_address = model_.nv;
  add_joint_coordinates(e, j, body);
  model_.joints.push_back(j);
}

// The joint's entries in qpos0 and the per-dof and per-joint arrays.
void Reader::add_joint_coordinates(const Element& e, const Joint& j, int body) {
  if (const Found friction = find(e, "frictionloss"); friction && number(e, "frictionloss", 0.0) != 0.0)
    fail(friction, "friction loss is not modelled yet");
  const double stiffness = number(e, "stiffness", 0.0);
  if (stiffness != 0.0 && (j.type == JointType::kBall || j.type == JointType::kFree))
    fail(find(e, "stiffness"), "springs on ball and free joints are not modelled yet");
  const double angle = j.type == JointType::kHinge && compiler_.degree ? kDegree : 1.0;
  const Body& b = model_.bodies[static_cast<std::size_t>(body)];
  if (j.type == JointType::kFree) {
    // MuJoCo's rule, which makes the body's pose relative to its parent its world pose.
    if (b.parent != 0) fail(e.node, "a free joint can only be used in a child of the world body");
    model_.qpos0.insert(model_.qpos0.end(), {b.pos.c[0], b.pos.c[1], b.pos.c[2], b.quat.c[0], b.quat.c[1], b.quat.c[2], b.quat.c[3]});
  } else if (j.type == JointType::kBall) {
    model_.qpos0.insert(model_.qpos0.end(), {1.0, 0.0, 0.0, 0.0});
  } else {
    model_.qpos0.push_back(angle * number(e, "ref", 0.0));
  }
  const int dofs = velocity_count(j.type);
  for (int d = 0; d < dofs; ++d) {
    model_.dof_joint.push_back(static_cast<int>(model_.joints.size()));
    dof_damping_.push_back(number(e, "damping", 0.0));
    dof_armature_.push_back(number(e, "armature", 0.0));
  }
  joint_stiffness_.push_back(stiffness);
  model_.nq += position_count(j.type);
  model_.nv += dofs;
}

void Reader::read_geom(const Element& e, int body, bool infer_mass, std::vector<GeomMass>& masses) {
  const Shape s = shape(e, false);
  if (s.type == GeomType::kPlane && body_weld_[static_cast<std::size_t>(body)] != 0)
    fail(e.node, "a plane can only be attached to the world or to bodies welded to it");
  Geom g;
  g.name = e.node.attribute("name").value();
  g.type = s.type;
  g.body = body;
  g.pos = s.pos;
  g.quat = s.quat;
  std::copy(s.size, s.size + 3, g.size);
  g.contype = integer(e, "contype", 1);
  g.conaffinity = integer(e, "conaffinity", 1);
  double friction[3] = {1.0, 0.005, 0.0001};
  numbers(e, "friction", friction, false);
  if (friction[0] < 0.0) fail(find(e, "friction"), "must not be negative");
  // MuJoCo counts only geoms of groups 0 to 5 (its default inertiagrouprange) for the mass.
  const int group = integer(e, "group", 0);
  if (infer_mass && group >= 0 && group <= 5) {
    const double mass = geom_mass(e, s);
    masses.push_back({mass, s.pos, s.quat, geom_inertia(s.type, s.size, mass)});
  }
  geom_friction_.push_back(friction[0]);
  geom_nodes_.push_back(e.node);
  model_.geoms.push_back(g);
}

// MuJoCo's geom mass: `mass` if given (0 stays 0, as does any mass of a geom without volume),
// else density (default 1000, water) times volume.
double Reader::geom_mass(const Element& e, const Shape& s) const {
  const double volume = geom_volume(s.type, s.size);
  const double density = number(e, "density", 1000.0);
  if (density < 0.0) fail(find(e, "density"), "must not be negative");
  if (const Found mass = find(e, "mass")) {
    const double m = number(e, "mass", 0.0);
    if (m < 0.0) fail(mass, "must not be negative");
    return m != 0.0 && volume > kMinValue ? m : 0.0;
  }
  return density * volume;
}

void Reader::read_site(const Element& e, int body) {
  const Shape s = shape(e, true);
  model_.sites.push_back({e.node.attribute("name").value(), body, s.pos, s.quat});
}

void Reader::read_mass(pugi::xml_node body_node, pugi::xml_node inertial, const std::vector<GeomMass>& masses, int body) {
  const bool from_geoms = compiler_.inertia_from_geom == InertiaFromGeom::kTrue ||
                          (compiler_.inertia_from_geom == InertiaFromGeom::kAuto && !inertial);
  if (from_geoms) mass_from_geoms(body_node, masses, body);
  else if (inertial) mass_from_inertial(inertial, body);
  check_moving_body(body_node, body);
}

void Reader::mass_from_geoms(pugi::xml_node body_node, const std::vector<GeomMass>& masses, int body) {
  Body& b = model_.bodies[static_cast<std::size_t>(body)];
  double mass = 0.0;
  Vec3<double> moment = Vec3<double>::zero();
  for (const GeomMass& g : masses) {
    mass += g.mass;
    moment += g.mass * g.pos;
  }
  if (masses.empty() || (masses.size() > 1 && mass < kMinValue)) {
    if (masses.size() > 1) fail(body_node, "the geoms' total mass is too small to place the centre of mass");
    return;
  }
  // One geom: its frame and inertia as they are (MuJoCo copies them); several: the
  // parallel-axis theorem about their common centre, then MuJoCo's principal axes of the sum.
  const Vec3<double> centre = masses.size() == 1 ? masses[0].pos : moment / mass;
  Mat3<double> inertia = rotated_inertia(masses[0].principal, masses[0].quat);
  if (masses.size() > 1) {
    Mat3<double> sum = Mat3<double>::zero();
    for (const GeomMass& g : masses) {
      const Mat3<double> own = rotated_inertia(g.principal, g.quat);
      const Mat3<double> shift = offset_inertia(g.mass, g.pos - centre);
      for (int k = 0; k < 9; ++k) sum.m[k] = sum.m[k] + own.m[k] + shift.m[k];
    }
    const Principal p = principal_axes(sum);
    inertia = rotated_inertia(p.moments, p.axes);
  }
  body_mass_[static_cast<std::size_t>(body)] = mass;
  b.centre = centre;
  if (mass > 0.0)
    for (int k = 0; k < 9; ++k) b.unit_inertia.m[k] = inertia.m[k] / mass;
}

void Reader::mass_from_inertial(pugi::xml_node inertial, int body) {
  const Element e{inertial, {}};
  Body& b = model_.bodies[static_cast<std::size_t>(body)];
  if (!find(e, "pos") || !find(e, "mass")) fail(inertial, "needs pos and mass");
  const double mass = number(e, "mass", 0.0);
  if (mass < 0.0) fail(find(e, "mass"), "must not be negative");
  Mat3<double> inertia = Mat3<double>::zero();
  double full[6];
  if (numbers(e, "fullinertia", full, true)) {
    if (find(e, "diaginertia")) fail(find(e, "fullinertia"), "given together with diaginertia");
    for (const char* name : {"quat", "euler", "axisangle", "xyaxes", "zaxis"})
      if (find(e, name)) fail(find(e, name), "fullinertia gives the axes already");
    const Principal p = principal_axes({{full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2]}});
    if (!(p.moments.c[2] >= kEpsilon)) fail(find(e, "fullinertia"), "must have positive eigenvalues");
    inertia = rotated_inertia(p.moments, p.axes);
  } else {
    Vec3<double> diagonal;
    if (!numbers(e, "diaginertia", diagonal.c, true)) fail(inertial, "needs diaginertia or fullinertia");
    const double x = diagonal.c[0], y = diagonal.c[1], z = diagonal.c[2];
    if (x < 0.0 || y < 0.0 || z < 0.0) fail(find(e, "diaginertia"), "must not be negative");
    if (x + y < z || x + z < y || y + z < x) fail(find(e, "diaginertia"), "must satisfy A + B >= C (MuJoCo's balanceinertia is not supported)");
    inertia = rotated_inertia(diagonal, orientation(e));
  }
  body_mass_[static_cast<std::size_t>(body)] = mass;
  b.centre = vec3(e, "pos", Vec3<double>::zero());
  if (mass > 0.0)
    for (int k = 0; k < 9; ++k) b.unit_inertia.m[k] = inertia.m[k] / mass;
}

// A body that moves needs mass and an inertia that can be inverted.
void Reader::check_moving_body(pugi::xml_node body_node, int body) const {
  const Body& b = model_.bodies[static_cast<std::size_t>(body)];
  if (b.joint_count == 0) return;
  std::string label = "body ";
  label += b.name.empty() ? std::to_string(body) : "'" + b.name + "'";
  if (!(body_mass_[static_cast<std::size_t>(body)] >= kMinValue))
    fail(body_node, label + " has joints but no mass (give it geoms with volume or an <inertial>)");
  const Vec3<double> moments = principal_axes(b.unit_inertia).moments;
  if (!(moments.c[2] > kEpsilon * moments.c[0])) fail(body_node, label + " has joints but a singular inertia");
}

}  // namespace simgrad::rigid::mjcf
