#include "report/rigid_frames.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/rollout.hpp"
#include "sims/rigid/contact_force.hpp"
#include "sims/rigid/energy.hpp"
#include "sims/rigid/kinematics.hpp"
#include "sims/rigid/soft_force.hpp"

namespace simgrad::report {

namespace rg = simgrad::rigid;

namespace {

// The two drawn coordinates of a world point.
std::array<double, 2> projected(const rg::Vec3<double>& p, RigidView view) {
  return {p.c[0], view == RigidView::kSide ? p.c[2] : p.c[1]};
}

// Appends the segment from a to b (drawn coordinates) with colour value `value`.
void segment(nlohmann::json& lines, const rg::Vec3<double>& a, const rg::Vec3<double>& b, RigidView view, double value) {
  const auto pa = projected(a, view), pb = projected(b, view);
  lines.push_back({pa[0], pa[1], pb[0], pb[1], value});
}

// A circle of radius r about c in the drawing plane, as 12 segments.
void circle(nlohmann::json& lines, const rg::Vec3<double>& c, double r, RigidView view, double value) {
  const auto pc = projected(c, view);
  constexpr int kSides = 12;
  for (int k = 0; k < kSides; ++k) {
    const double a0 = 2.0 * std::numbers::pi * k / kSides, a1 = 2.0 * std::numbers::pi * (k + 1) / kSides;
    lines.push_back({pc[0] + r * std::cos(a0), pc[1] + r * std::sin(a0), pc[0] + r * std::cos(a1), pc[1] + r * std::sin(a1), value});
  }
}

// The outline of geom g (frame f) in the drawing plane; a plane (an infinite ground) is drawn
// `reach` either side of `centre`, the middle of the bodies, so that they do not shrink to dots.
void draw_geom(nlohmann::json& lines, const rg::Geom& g, const rg::GeomFrame<double>& f, RigidView view, double value,
               const rg::Vec3<double>& centre, double reach) {
  switch (g.type) {
    case rg::GeomType::kPlane: {
      if (view == RigidView::kTop) return;
      const rg::Vec3<double> x = f.axis(0);
      const rg::Vec3<double> middle = f.pos + dot(centre - f.pos, x) * x;
      segment(lines, middle - reach * x, middle + reach * x, view, 0.0);
      return;
    }
    case rg::GeomType::kSphere:
    case rg::GeomType::kEllipsoid:
      circle(lines, f.pos, g.size[0], view, value);
      return;
    case rg::GeomType::kCapsule:
    case rg::GeomType::kCylinder: {
      rg::Vec3<double> p, q;
      rg::segment_ends(f, g.size[1], p, q);
      segment(lines, p, q, view, value);
      circle(lines, p, g.size[0], view, value);
      circle(lines, q, g.size[0], view, value);
      return;
    }
    case rg::GeomType::kBox:
      for (int edge = 0; edge < 12; ++edge) {
        // Edges along axis `along`, at the four sign combinations of the other two axes.
        const int along = edge / 4, u = (along + 1) % 3, v = (along + 2) % 3;
        const double su = (edge & 1) ? 1.0 : -1.0, sv = (edge & 2) ? 1.0 : -1.0;
        const rg::Vec3<double> mid = f.pos + (su * g.size[u]) * f.axis(u) + (sv * g.size[v]) * f.axis(v);
        segment(lines, mid - g.size[along] * f.axis(along), mid + g.size[along] * f.axis(along), view, value);
      }
      return;
  }
}

// A shape's surface in its own axes: points and outward-wound triangles.
struct LocalMesh {
  std::vector<std::array<double, 3>> points;
  std::vector<std::array<Index, 3>> triangles;
};

// A box of half extents h.
LocalMesh box_mesh(const double h[3]) {
  LocalMesh m;
  for (int k = 0; k < 8; ++k) m.points.push_back({(k & 1 ? 1 : -1) * h[0], (k & 2 ? 1 : -1) * h[1], (k & 4 ? 1 : -1) * h[2]});
  // Two triangles per face, wound counter-clockwise seen from outside.
  const Index faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : faces) {
    m.triangles.push_back({f[0], f[1], f[2]});
    m.triangles.push_back({f[0], f[2], f[3]});
  }
  return m;
}

// A polyhedron of `sides` around the local z axis through rings at heights z with radii r (a
// radius 0 is a pole), closed by fans at both ends.
LocalMesh revolved_mesh(const std::vector<double>& z, const std::vector<double>& r, int sides) {
  LocalMesh m;
  std::vector<Index> ring_start;
  for (std::size_t i = 0; i < z.size(); ++i) {
    ring_start.push_back(static_cast<Index>(m.points.size()));
    const int count = r[i] == 0.0 ? 1 : sides;
    for (int k = 0; k < count; ++k) {
      const double a = 2.0 * std::numbers::pi * k / sides;
      m.points.push_back({r[i] * std::cos(a), r[i] * std::sin(a), z[i]});
    }
  }
  auto at = [&](std::size_t ring, int k) { return ring_start[ring] + (r[ring] == 0.0 ? 0 : (k % sides)); };
  for (std::size_t i = 0; i + 1 < z.size(); ++i)
    for (int k = 0; k < sides; ++k) {
      const Index a = at(i, k), b = at(i, k + 1), c = at(i + 1, k + 1), d = at(i + 1, k);
      if (a != b) m.triangles.push_back({a, b, c});
      if (c != d) m.triangles.push_back({a, c, d});
    }
  // Flat ends where the first or last ring is not a pole.
  auto cap = [&](std::size_t ring, bool bottom) {
    if (r[ring] == 0.0) return;
    const Index centre = static_cast<Index>(m.points.size());
    m.points.push_back({0.0, 0.0, z[ring]});
    for (int k = 0; k < sides; ++k)
      m.triangles.push_back(bottom ? std::array<Index, 3>{centre, at(ring, k + 1), at(ring, k)}
                                   : std::array<Index, 3>{centre, at(ring, k), at(ring, k + 1)});
  };
  cap(0, true);
  cap(z.size() - 1, false);
  return m;
}

constexpr int kSides = 12;

// The geom's surface in its own axes; a plane has none.
LocalMesh geom_mesh(const rg::Geom& g) {
  switch (g.type) {
    case rg::GeomType::kPlane:
      return {};
    case rg::GeomType::kBox:
      return box_mesh(g.size);
    case rg::GeomType::kCylinder:
      return revolved_mesh({-g.size[1], g.size[1]}, {g.size[0], g.size[0]}, kSides);
    case rg::GeomType::kSphere:
    case rg::GeomType::kEllipsoid:
    case rg::GeomType::kCapsule: {
      // Rings of a sphere (latitudes), the two halves pulled apart by a capsule's half length;
      // an ellipsoid scales the unit sphere by its radii.
      std::vector<double> z, r;
      const double half = g.type == rg::GeomType::kCapsule ? g.size[1] : 0.0;
      for (int i = 0; i <= kSides / 2; ++i) {
        const double polar = std::numbers::pi * i / (kSides / 2);
        const double shift = i < kSides / 4 ? -half : i > kSides / 4 ? half : 0.0;
        z.push_back(-std::cos(polar) * g.size[0] + shift);
        r.push_back(i == 0 || i == kSides / 2 ? 0.0 : std::sin(polar) * g.size[0]);
        if (i == kSides / 4 && half > 0.0) {  // the capsule's cylinder: the equator twice
          z.back() = -half;
          z.push_back(half);
          r.push_back(r.back());
        }
      }
      LocalMesh m = revolved_mesh(z, r, kSides);
      if (g.type == rg::GeomType::kEllipsoid)
        for (auto& p : m.points)
          for (int k = 0; k < 3; ++k) p[static_cast<std::size_t>(k)] *= g.size[k] / g.size[0];
      return m;
    }
  }
  return {};
}

}  // namespace

void rigid_surface(const rg::RigidModel& model, const rg::RigidTree& tree, std::span<const double> state,
                   std::vector<double>& points, std::vector<std::array<Index, 3>>* triangles) {
  rg::RigidWorkspace<double> w;
  w.resize(tree);
  rg::forward_kinematics(model, state.data(), w);
  for (const rg::Geom& g : model.geoms) {
    const LocalMesh mesh = geom_mesh(g);
    const rg::GeomFrame<double> f = rg::geom_frame(g, w);
    const Index first = static_cast<Index>(points.size() / 3);
    for (const auto& p : mesh.points) {
      const rg::Vec3<double> x = f.pos + p[0] * f.axis(0) + p[1] * f.axis(1) + p[2] * f.axis(2);
      points.insert(points.end(), {x.c[0], x.c[1], x.c[2]});
    }
    if (triangles)
      for (const auto& t : mesh.triangles) triangles->push_back({first + t[0], first + t[1], first + t[2]});
  }
}

nlohmann::json rigid_summary(rg::RigidWorlds& system, const rg::RigidLoss& loss, std::span<const double> final_state) {
  rg::RigidModel& m = system.model();
  nlohmann::json j = {{"bodies", m.bodies.size() - 1}, {"dofs", m.nv},     {"actuators", m.nu()},
                      {"contact_pairs", m.contact_pairs.size()}, {"worlds", m.worlds}};
  // Names let a later tuning run of an edited machine start from this one's controller.
  j["actuator_names"] = nlohmann::json::array();
  for (const rg::Actuator& a : m.actuators) j["actuator_names"].push_back(a.name);
  const rg::RigidLossSettings& s = loss.settings();
  if (s.reach_body >= 0) {
    const rg::Vec3<double> p = loss.point_position(final_state, 0, s.reach_body, s.reach_point);
    j["final_reach_distance"] = norm(p - s.reach_target);
  }
  if (s.progress_body >= 0) {
    // World 0's start: its initial positions, at rest.
    std::vector<double> start(m.initial_qpos.values().begin(), m.initial_qpos.values().begin() + m.nq);
    start.resize(static_cast<std::size_t>(m.state_size()), 0.0);
    const rg::Vec3<double> zero = rg::Vec3<double>::zero();
    const rg::Vec3<double> moved = loss.point_position(final_state, 0, s.progress_body, zero) - loss.point_position(start, 0, s.progress_body, zero);
    j["progress"] = dot(moved, s.progress_direction);
  }
  if (s.apex_joint >= 0) j["apex"] = loss.apex(final_state, 0);
  if (s.effort_weight > 0.0) j["effort"] = loss.effort();
  return j;
}

nlohmann::json rigid_frames(rg::RigidWorlds& system, rg::RigidLoss& loss, int steps, RigidView view) {
  rg::RigidModel& m = system.model();
  const rg::RigidTree& tree = system.tree();
  nlohmann::json out = {{"legend", std::string("world 0 seen ") + (view == RigidView::kSide ? "from the side (x, z)" : "from above (x, y)") +
                                       "; ground black, bodies coloured in tree order"},
                        {"frames", nlohmann::json::array()}};
  const int stride = std::max(1, steps / 80);
  rg::RigidWorkspace<double> w;
  w.resize(tree);
  const rg::RigidLossSettings& s = loss.settings();
  const rg::RigidConstants<double> constants = rg::constants_of(m);
  nlohmann::json energy = nlohmann::json::array(), time = nlohmann::json::array();
  RolloutOptions record;
  record.observer = [&](int t, std::span<const double> state) {
    if (t % stride != 0 && t != steps) return;
    rg::forward_kinematics(m, state.data(), w);
    // The bodies' middle and spread, for the ground line.
    rg::Vec3<double> lo = w.xpos[m.bodies.size() > 1 ? 1 : 0], hi = lo;
    for (std::size_t b = 1; b < m.bodies.size(); ++b)
      for (int k = 0; k < 3; ++k) lo.c[k] = std::min(lo.c[k], w.xpos[b].c[k]), hi.c[k] = std::max(hi.c[k], w.xpos[b].c[k]);
    const rg::Vec3<double> centre = 0.5 * (lo + hi);
    const double reach = 0.5 * norm(hi - lo) + 1.0;
    nlohmann::json lines = nlohmann::json::array(), points = nlohmann::json::array();
    for (const rg::Geom& g : m.geoms)
      draw_geom(lines, g, rg::geom_frame(g, w), view, static_cast<double>(g.body) / static_cast<double>(m.bodies.size()), centre,
                reach);
    // Soft parts: their springs, coloured as the body they hang from.
    const double* nodes = state.data() + m.nq + m.nv;
    for (const rg::SoftSpring& spring : m.soft_springs)
      segment(lines, rg::node_vector(nodes, static_cast<std::size_t>(spring.a)), rg::node_vector(nodes, static_cast<std::size_t>(spring.b)),
              view, static_cast<double>(m.soft_nodes[static_cast<std::size_t>(spring.a)].body) / static_cast<double>(m.bodies.size()));
    // Springs between bodies, coloured as their first body.
    for (const rg::BodySpring& spring : m.body_springs)
      segment(lines, rg::world_point(w, spring.body_a, spring.point_a), rg::world_point(w, spring.body_b, spring.point_b), view,
              static_cast<double>(spring.body_a) / static_cast<double>(m.bodies.size()));
    if (s.reach_body >= 0) {
      const auto target = projected(s.reach_target, view);
      points.push_back({target[0], target[1]});
    }
    const double seconds = t * m.settings.timestep;
    out["frames"].push_back({{"label", "t = " + std::to_string(seconds).substr(0, 5) + " s"}, {"lines", lines},
                             {"points", points}, {"time", seconds}});
    rg::inertias_and_axes(m, constants, w);
    rg::body_velocities(m, tree, state.data() + m.nq, w);
    energy.push_back(rg::kinetic_energy(w) + rg::potential_energy(m, w));
    time.push_back(seconds);
  };
  Rollout(system, loss, steps, record).loss();
  // Soft parts exchange energy with the bodies through springs the chart does not count.
  const std::string whose = m.soft_nodes.empty() ? "world 0" : "world 0's rigid bodies (soft parts not counted)";
  out["charts"] = nlohmann::json::array({{{"title", "energy of " + whose + " (kinetic + gravitational)"},
                                          {"x_label", "time (s)"},
                                          {"y_label", "J"},
                                          {"series", nlohmann::json::array({{{"name", "energy"}, {"x", time}, {"y", energy}}})}}});
  return out;
}

}  // namespace simgrad::report
