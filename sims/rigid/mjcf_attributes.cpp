// Reading MJCF attribute values the way MuJoCo does: from the element or else its innermost
// default, numbers strictly parsed with partial lists overlaid on the defaults' values, limits
// with MuJoCo's limited / autolimits rules, frames from the orientation alternatives and fromto.
#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>
#include <optional>

#include "sims/rigid/mjcf_reader.hpp"

namespace simgrad::rigid::mjcf {

// Degrees to radians.
static constexpr double kDegree = std::numbers::pi / 180.0;

// The text in single quotes, for messages.
static std::string quoted(std::string_view text) {
  std::string q = "'";
  q.append(text);
  q += "'";
  return q;
}

Found Reader::find(const Element& e, const char* name) const {
  if (const pugi::xml_attribute a = e.node.attribute(name)) return {e.node, a};
  for (auto d = e.defaults.rbegin(); d != e.defaults.rend(); ++d)
    if (const pugi::xml_attribute a = d->attribute(name)) return {*d, a};
  return {};
}

std::vector<double> Reader::parse_numbers(const Found& at) const {
  std::vector<double> out;
  const std::string_view text = at.attribute.value();
  const char* p = text.data();
  const char* end = p + text.size();
  while (true) {
    while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (p == end) return out;
    if (*p == '+') ++p;
    double x = 0.0;
    const auto [next, error] = std::from_chars(p, end, x);
    if (error != std::errc() || (next < end && !std::isspace(static_cast<unsigned char>(*next))) || !std::isfinite(x))
      fail(at, quoted(text) + " is not a list of finite numbers");
    out.push_back(x);
    p = next;
  }
}

bool Reader::numbers(const Element& e, const char* name, std::span<double> values, bool exact) const {
  std::vector<pugi::xml_node> holders = e.defaults;
  holders.push_back(e.node);
  bool any = false;
  for (const pugi::xml_node holder : holders) {
    const Found at{holder, holder.attribute(name)};
    if (!at) continue;
    const std::vector<double> read = parse_numbers(at);
    if (read.size() > values.size() || (exact && read.size() != values.size()))
      fail(at, "expects " + std::string(exact ? "" : "at most ") + std::to_string(values.size()) +
                   (values.size() == 1 ? " number" : " numbers") + ", got " + std::to_string(read.size()));
    std::copy(read.begin(), read.end(), values.begin());
    any = true;
  }
  return any;
}

double Reader::number(const Element& e, const char* name, double fallback) const {
  double value[1] = {fallback};
  numbers(e, name, value, true);
  return value[0];
}

Vec3<double> Reader::vec3(const Element& e, const char* name, const Vec3<double>& fallback) const {
  Vec3<double> v = fallback;
  numbers(e, name, v.c, true);
  return v;
}

int Reader::integer(const Element& e, const char* name, int fallback) const {
  const Found at = find(e, name);
  if (!at) return fallback;
  const std::string_view text = at.attribute.value();
  int value = 0;
  const auto [next, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || next != text.data() + text.size()) fail(at, quoted(text) + " is not an integer");
  return value;
}

std::string Reader::word(const Element& e, const char* name, const std::string& fallback) const {
  const Found at = find(e, name);
  return at ? std::string(at.attribute.value()) : fallback;
}

bool Reader::boolean(const Element& e, const char* name, bool fallback) const {
  const Found at = find(e, name);
  if (!at) return fallback;
  const std::string_view v = at.attribute.value();
  if (v != "true" && v != "false") fail(at, "expects true or false, got " + quoted(v));
  return v == "true";
}

int Reader::tristate(const Element& e, const char* name) const {
  const Found at = find(e, name);
  if (!at || std::string_view(at.attribute.value()) == "auto") return -1;
  return boolean(e, name, false) ? 1 : 0;
}

bool Reader::limited(const Element& e, const char* limited_name, const char* range_name, std::span<double, 2> range) const {
  const bool has_range = numbers(e, range_name, range, true) && !(range[0] == 0.0 && range[1] == 0.0);
  const int limited = tristate(e, limited_name);
  if (limited >= 0) return limited == 1;
  // MuJoCo 2.2.2 has autolimits="false" by default and rejects a range without `limited`;
  // later MuJoCo (and simgrad) take a given range as a limit.
  if (!compiler_.autolimits && has_range)
    fail(find(e, range_name), std::string("given without '") + limited_name +
                                  "' while the compiler has autolimits=\"false\": set one of them");
  return has_range;
}

Quat<double> Reader::orientation(const Element& e) const {
  static constexpr const char* kNames[] = {"quat", "euler", "axisangle", "xyaxes", "zaxis"};
  // The element's own orientation, else the innermost default's that gives one.
  std::vector<pugi::xml_node> holders = e.defaults;
  holders.push_back(e.node);
  for (auto h = holders.rbegin(); h != holders.rend(); ++h) {
    std::vector<const char*> given;
    for (const char* name : kNames)
      if (h->attribute(name)) given.push_back(name);
    if (given.empty()) continue;
    if (given.size() > 1) fail(*h, given[1], std::string("the orientation is already given by '") + given[0] + "'");
    const Element own{*h, {}};
    const Found at{*h, h->attribute(given[0])};
    const std::string_view kind = given[0];
    try {
      if (kind == "quat") {
        Quat<double> q;
        numbers(own, "quat", q.c, true);
        if (std::sqrt(dot(q, q)) < kEpsilon) fail(at, "the quaternion is zero");
        return normalized(q);
      }
      const double angle_unit = compiler_.degree ? kDegree : 1.0;
      if (kind == "euler") return quat_from_euler(angle_unit * vec3(own, "euler", Vec3<double>::zero()), compiler_.euler_sequence);
      if (kind == "axisangle") {
        double v[4];
        numbers(own, "axisangle", v, true);
        return quat_from_axis_angle({{v[0], v[1], v[2]}}, angle_unit * v[3]);
      }
      if (kind == "xyaxes") {
        double v[6];
        numbers(own, "xyaxes", v, true);
        return quat_from_xyaxes(std::span<const double, 6>(v));
      }
      return quat_from_zaxis(vec3(own, "zaxis", Vec3<double>::zero()));
    } catch (const std::invalid_argument& error) {
      fail(at, error.what());
    }
  }
  return {{1.0, 0.0, 0.0, 0.0}};
}

// MuJoCo's name of each primitive geom type.
static std::optional<GeomType> geom_type(std::string_view name) {
  static constexpr std::pair<std::string_view, GeomType> kTypes[] = {
      {"plane", GeomType::kPlane},       {"sphere", GeomType::kSphere}, {"capsule", GeomType::kCapsule},
      {"ellipsoid", GeomType::kEllipsoid}, {"cylinder", GeomType::kCylinder}, {"box", GeomType::kBox}};
  for (const auto& [n, t] : kTypes)
    if (n == name) return t;
  return std::nullopt;
}

// How many of a type's sizes MuJoCo requires to be positive.
static int size_count(GeomType type) {
  switch (type) {
    case GeomType::kPlane: return 0;
    case GeomType::kSphere: return 1;
    case GeomType::kCapsule:
    case GeomType::kCylinder: return 2;
    case GeomType::kEllipsoid:
    case GeomType::kBox: return 3;
  }
  return 0;
}

Shape Reader::shape(const Element& e, bool site) const {
  Shape s;
  const Found type = find(e, "type");
  if (const Found mesh = find(e, "mesh")) fail(mesh, "mesh geoms are not supported yet");
  const std::string type_name = type ? type.attribute.value() : "sphere";
  if (type_name == "mesh") fail(type, "mesh geoms are not supported yet");
  const std::optional<GeomType> t = geom_type(type_name);
  if (!t || (site && t == GeomType::kPlane)) fail(type, "type '" + type_name + "' is not supported");
  s.type = *t;
  if (site) s.size[0] = s.size[1] = s.size[2] = 0.005;
  numbers(e, "size", s.size, false);
  double fromto[6];
  if (numbers(e, "fromto", fromto, true)) {
    const Found at = find(e, "fromto");
    if (s.type == GeomType::kPlane || s.type == GeomType::kSphere) fail(at, "needs a capsule, cylinder, ellipsoid or box");
    const Vec3<double> pos = vec3(e, "pos", Vec3<double>::zero());
    if (pos.c[0] != 0.0 || pos.c[1] != 0.0 || pos.c[2] != 0.0) fail(at, "given together with pos");
    if (find(Element{e.node, {}}, "quat") || find(Element{e.node, {}}, "euler") || find(Element{e.node, {}}, "axisangle") ||
        find(Element{e.node, {}}, "xyaxes") || find(Element{e.node, {}}, "zaxis"))
      fail(at, "given together with an orientation");
    const Vec3<double> from{{fromto[0], fromto[1], fromto[2]}}, to{{fromto[3], fromto[4], fromto[5]}};
    // As MuJoCo: the z axis points from `to` to `from`.
    const Vec3<double> along = from - to;
    const double half = 0.5 * std::sqrt(dot(along, along));
    if (half < kEpsilon) fail(at, "the two points are too close");
    if (s.type == GeomType::kEllipsoid || s.type == GeomType::kBox) {
      s.size[2] = half;
      s.size[1] = s.size[0];
    } else {
      s.size[1] = half;
    }
    s.pos = 0.5 * (from + to);
    s.quat = quat_from_zaxis(along);
  } else {
    s.pos = vec3(e, "pos", Vec3<double>::zero());
    s.quat = orientation(e);
  }
  for (int i = 0; i < size_count(s.type) && !site; ++i)
    if (!(s.size[i] > 0.0)) fail(find(e, "size") ? find(e, "size") : Found{e.node, {}}, "sizes must be positive");
  return s;
}

}  // namespace simgrad::rigid::mjcf
