// Springs between bodies (model.hpp's BodySpring): a player's spring, or the link that closes a
// loop of joints. With p_a, p_b the points' world positions, d = p_b - p_a, l = |d|, u = d / l and
// v the velocity of p_b relative to p_a:
//   length L > 0   tension T = k (l - L) + c v.u;   T u on body a at p_a, -T u on body b at p_b
//   length 0       f = k d + c v on body a at p_a, -f on body b at p_b (no direction to lose
//                  when the points meet, which is where a closed loop keeps them)
// k is the tunable spring_stiffness, c the spring's damping. Equal and opposite, so the springs
// are internal forces: a machine's momentum is theirs to keep.
#pragma once

#include <cmath>

#include "sims/rigid/contact_force.hpp"
#include "sims/rigid/kinematics.hpp"

namespace simgrad::rigid {

// Adds every body spring's pull to w.external.
template <class S>
void body_spring_forces(const RigidModel& m, const RigidConstants<S>& c, RigidWorkspace<S>& w) {
  using std::sqrt;
  for (std::size_t i = 0; i < m.body_springs.size(); ++i) {
    const BodySpring& s = m.body_springs[i];
    const Vec3<S> pa = world_point(w, s.body_a, s.point_a), pb = world_point(w, s.body_b, s.point_b);
    const Vec3<S> d = pb - pa;
    const Vec3<S> v = point_velocity(w, s.body_b, pb) - point_velocity(w, s.body_a, pa);
    Vec3<S> on_a;
    if (s.length == 0.0) {
      on_a = c.spring_stiffness[i] * d + s.damping * v;
    } else {
      const S l = sqrt(dot(d, d));
      const Vec3<S> u = d / l;
      on_a = (c.spring_stiffness[i] * (l - s.length) + s.damping * dot(v, u)) * u;
    }
    w.external[static_cast<std::size_t>(s.body_a)] += Spatial<S>{cross(pa, on_a), on_a};
    w.external[static_cast<std::size_t>(s.body_b)] -= Spatial<S>{cross(pb, on_a), on_a};
  }
}

}  // namespace simgrad::rigid
