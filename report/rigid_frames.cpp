#include "report/rigid_frames.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/rollout.hpp"
#include "sims/rigid/contact_force.hpp"
#include "sims/rigid/energy.hpp"
#include "sims/rigid/kinematics.hpp"

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

}  // namespace

nlohmann::json rigid_summary(rg::RigidWorlds& system, const rg::RigidLoss& loss, std::span<const double> final_state) {
  rg::RigidModel& m = system.model();
  nlohmann::json j = {{"bodies", m.bodies.size() - 1}, {"dofs", m.nv},     {"actuators", m.nu()},
                      {"contact_pairs", m.contact_pairs.size()}, {"worlds", m.worlds}};
  const rg::RigidLossSettings& s = loss.settings();
  if (s.reach_body >= 0) {
    const rg::Vec3<double> p = loss.point_position(final_state, 0, s.reach_body, s.reach_point);
    j["final_reach_distance"] = norm(p - s.reach_target);
  }
  if (s.progress_body >= 0) {
    // World 0's start: its initial positions, at rest.
    std::vector<double> start(m.initial_qpos.values().begin(), m.initial_qpos.values().begin() + m.nq);
    start.resize(static_cast<std::size_t>(m.nq + m.nv), 0.0);
    const rg::Vec3<double> zero = rg::Vec3<double>::zero();
    const rg::Vec3<double> moved = loss.point_position(final_state, 0, s.progress_body, zero) - loss.point_position(start, 0, s.progress_body, zero);
    j["progress"] = dot(moved, s.progress_direction);
  }
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
  out["charts"] = nlohmann::json::array({{{"title", "energy of world 0 (kinetic + gravitational)"},
                                          {"x_label", "time (s)"},
                                          {"y_label", "J"},
                                          {"series", nlohmann::json::array({{{"name", "energy"}, {"x", time}, {"y", energy}}})}}});
  return out;
}

}  // namespace simgrad::report
