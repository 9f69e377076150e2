// Contact forces: a penalty spring-damper along the normal with smooth Coulomb friction, relaxed
// for tuning and with a hard twin for re-scoring (core/relax.hpp).
//
//   f_n = k softplus_w(-d) - b s_w(-d) v_n      normal push, d the signed distance, v_n the
//                                               separating speed, softplus and sigmoid s of width w
//   f_t = -mu max(f_n, 0) v_t / sqrt(|v_t|^2 + v_s^2)   friction against the sliding velocity v_t
// The hard twin (width 0) switches on at contact exactly: f_n = k max(-d, 0) - b [d < 0] v_n. Both
// act at the point midway between the surfaces, equal and opposite on the two bodies; mu is the
// larger of the two geoms' friction coefficients, as in MuJoCo.
#pragma once

#include <cmath>

#include "core/relax.hpp"
#include "sims/rigid/collision.hpp"
#include "sims/rigid/workspace.hpp"

namespace simgrad::rigid {

// A geom's world frame, after forward_kinematics (the geom's own rotation is a constant, so it
// stays off the tape).
template <class S>
GeomFrame<S> geom_frame(const Geom& g, const RigidWorkspace<S>& w) {
  const auto b = static_cast<std::size_t>(g.body);
  return {w.xpos[b] + w.xmat[b] * Vec3<S>::from(g.pos), w.xmat[b] * Mat3<S>::from(rotation_matrix(g.quat))};
}

// The velocity of the world point p moving with body b.
template <class S>
Vec3<S> point_velocity(const RigidWorkspace<S>& w, int b, const Vec3<S>& p) {
  const Spatial<S>& v = w.velocity[static_cast<std::size_t>(b)];
  return v.bottom + cross(v.top, p);
}

// Whether surfaces at signed distance d are too far apart for any force (beta = 1 / width).
template <class S>
bool beyond_contact(const S& d, double beta) {
  return beta > 0.0 ? beta * value_of(d) > 746.0 : value_of(d) >= 0.0;
}

// The force on the second of two surfaces at signed distance d along the unit normal n (from the
// first to the second), v the second's velocity relative to the first's, mu the friction
// coefficient, k and b the contact stiffness and damping: the law at the top of this file.
template <class S>
Vec3<S> contact_law(const S& d, const Vec3<S>& n, const Vec3<S>& v, const S& mu, const S& k, const S& b,
                    const ContactSettings& s, double beta) {
  using std::sqrt;
  const S vn = dot(v, n);
  const S fn = relax::penalty_force(d, 1.0, beta) * k - relax::threshold(-d, s.width) * b * vn;
  Vec3<S> force = fn * n;
  if (value_of(fn) > 0.0) {
    const Vec3<S> vt = v - vn * n;
    force -= (mu * fn / sqrt(dot(vt, vt) + s.slip_speed * s.slip_speed)) * vt;
  }
  return force;
}

// Adds the contact forces of every candidate pair to w.external.
template <class S>
void contact_forces(const RigidModel& m, const RigidConstants<S>& c, RigidWorkspace<S>& w) {
  const ContactSettings& s = m.settings.contact;
  const double beta = s.width > 0.0 ? 1.0 / s.width : 0.0;
  const S& k = c.contact_stiffness[0];
  const S& b = c.contact_damping[0];
  for (const GeomPair& pair : m.contact_pairs) {
    const Geom& ga = m.geoms[static_cast<std::size_t>(pair.a)];
    const Geom& gb = m.geoms[static_cast<std::size_t>(pair.b)];
    const S& mu_a = c.geom_friction[static_cast<std::size_t>(pair.a)];
    const S& mu_b = c.geom_friction[static_cast<std::size_t>(pair.b)];
    const S mu = value_of(mu_a) >= value_of(mu_b) ? mu_a : mu_b;
    collide(ga, geom_frame(ga, w), gb, geom_frame(gb, w), [&](const Vec3<S>& p, const Vec3<S>& n, const S& d) {
      if (beyond_contact(d, beta)) return;
      // The world (body 0) stands still and takes no force: its terms stay off the tape.
      Vec3<S> v = point_velocity(w, gb.body, p);
      if (ga.body != 0) v = v - point_velocity(w, ga.body, p);
      const Vec3<S> force = contact_law(d, n, v, mu, k, b, s, beta);
      // Force on b, and its opposite on a, both at p: (p x f, f) about the origin.
      const Spatial<S> on_b{cross(p, force), force};
      if (gb.body != 0) w.external[static_cast<std::size_t>(gb.body)] += on_b;
      if (ga.body != 0) w.external[static_cast<std::size_t>(ga.body)] -= on_b;
    });
  }
}

}  // namespace simgrad::rigid
