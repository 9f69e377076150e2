// Soft parts: point masses (nodes) on springs, coupled to the rigid bodies (model.hpp's SoftNode,
// SoftSpring, SoftAnchor). With d = x_b - x_a, l = |d| and u = d / l:
//   spring   tension T = k (l - L) + c (v_b - v_a).u;  T u on node a, -T u on node b
//   anchor   f = k (p - x) + c (v_p - v), p the body point's world position and v_p its
//            velocity;  f on the node, -f on the body at p
//   ground   each node a sphere of its radius against each ground plane, under the contact law
//            of contact_force.hpp with the node's own stiffness and damping and the plane's
//            friction
// Forces on the nodes go to w.node_force (gravity is added by the integrator); their reactions on
// the bodies go to w.external, so the tree feels every spring that holds a soft part.
#pragma once

#include <cmath>

#include "sims/rigid/contact_force.hpp"
#include "sims/rigid/kinematics.hpp"

namespace simgrad::rigid {

// Node i's position (or velocity) in a node array of 3 per node.
template <class S>
Vec3<S> node_vector(const S* values, std::size_t i) {
  return {{values[3 * i], values[3 * i + 1], values[3 * i + 2]}};
}

// w.node_force, and the reactions into w.external, from node positions x and velocities v.
template <class S>
void soft_forces(const RigidModel& m, const RigidConstants<S>& c, const S* x, const S* v, RigidWorkspace<S>& w) {
  using std::sqrt;
  for (S& f : w.node_force) f = S(0.0);
  auto add = [&w](std::size_t i, const Vec3<S>& f) {
    for (std::size_t k = 0; k < 3; ++k) w.node_force[3 * i + k] += f.c[k];
  };
  for (const SoftSpring& s : m.soft_springs) {
    const auto a = static_cast<std::size_t>(s.a), b = static_cast<std::size_t>(s.b);
    const Vec3<S> d = node_vector(x, b) - node_vector(x, a);
    const S l = sqrt(dot(d, d));
    const Vec3<S> u = d / l;
    const S tension = s.stiffness * (l - s.length) + s.damping * dot(node_vector(v, b) - node_vector(v, a), u);
    add(a, tension * u);
    add(b, -1.0 * (tension * u));
  }
  for (const SoftAnchor& s : m.soft_anchors) {
    const auto i = static_cast<std::size_t>(s.node), body = static_cast<std::size_t>(s.body);
    const Vec3<S> p = world_point(w, s.body, s.point);
    const Vec3<S> f = s.stiffness * (p - node_vector(x, i)) + s.damping * (point_velocity(w, s.body, p) - node_vector(v, i));
    add(i, f);
    w.external[body] -= Spatial<S>{cross(p, f), f};
  }
  const ContactSettings& settings = m.settings.contact;
  const double beta = settings.width > 0.0 ? 1.0 / settings.width : 0.0;
  for (const int plane : m.soft_ground) {
    const Geom& g = m.geoms[static_cast<std::size_t>(plane)];
    const GeomFrame<S> frame = geom_frame(g, w);
    const Vec3<S> n = frame.axis(2);
    for (std::size_t i = 0; i < m.soft_nodes.size(); ++i) {
      const Vec3<S> xi = node_vector(x, i);
      const double r = m.soft_nodes[i].radius;
      const S d = dot(n, xi - frame.pos) - r;
      if (beyond_contact(d, beta)) continue;
      const Vec3<S> p = xi - (r + 0.5 * d) * n;
      const Vec3<S> f = contact_law(d, n, node_vector(v, i) - point_velocity(w, g.body, p),
                                    c.geom_friction[static_cast<std::size_t>(plane)], S(m.soft_nodes[i].contact_stiffness),
                                    S(m.soft_nodes[i].contact_damping), settings, beta);
      add(i, f);
      w.external[static_cast<std::size_t>(g.body)] -= Spatial<S>{cross(p, f), f};
    }
  }
}

}  // namespace simgrad::rigid
