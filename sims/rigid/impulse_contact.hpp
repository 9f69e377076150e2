// Impulse contact with time-of-impact correction: the hard contact of billiards and Newton's
// cradle, written once, generic in the scalar, so that the derived adjoint (the step re-run on
// the local tape) is the exact gradient within a contact pattern.
//
// The smooth forces first give the step's new velocities v. Then, from the step's start:
//   1. every candidate pair's time of impact s, its geoms moving at their current velocities:
//        sphere-sphere  the first root of |dx + s dv| = ra + rb, while dx . dv < 0
//        sphere-plane   s = d / -v_n, while v_n < 0
//      (exact for translating bodies, first order in rotation; negative for a pair that touched
//      a moment ago, so that positions back up to the contact);
//   2. positions advance to the earliest impact within what is left of the step;
//   3. the normal impulse, in generalised coordinates with J the contact Jacobian (the normal
//      velocity per unit of each dof, from the dof axes) and M the mass matrix there:
//        v += M^-1 J^T lambda,   lambda = -(1 + e) (J v) / (J M^-1 J^T),  e the restitution;
//      and Coulomb friction along two tangents t_i, the impulses that stop the sliding,
//      lambda_i = -(J_i v) / (J_i M^-1 J_i^T), scaled back into the cone |lambda_t| <= mu lambda;
//   4. back to 1 with the new velocities for the rest of the step (at most kMaxImpactsPerStep
//      impacts; later ones in the same step are then left to the next step).
// The gradient flows through s, the positions at impact and the impulse, so moving the start
// moves the impact point and the bounce with it: the right sign. The naive variant
// (advance_then_impulse) moves the whole step first and applies the impulses to whatever
// overlaps at its end, with the positions left where they were; its gradient within a pattern
// has the wrong sign on a bounce (DiffTaichi, Hu et al. 2020, section on billiards), which the
// tests show. Resting contact (impacts at zero speed every step) is not what this model is for:
// billiard balls move on slide joints in the table's plane, with the table out of contact.
#pragma once

#include <cmath>
#include <cstdlib>
#include <utility>

#include "sims/rigid/collision.hpp"
#include "sims/rigid/contact_force.hpp"
#include "sims/rigid/kinematics.hpp"
#include "sims/rigid/mass_matrix.hpp"

namespace simgrad::rigid {

// Impacts resolved in one step before the rest is left to the next (a rack's break resolves
// each ball-ball impact in turn; Newton's cradle with n balls needs n - 1 at once).
inline constexpr int kMaxImpactsPerStep = 64;

// Whether impulse contact handles this pair of types (in either order).
inline bool impulse_supported(GeomType a, GeomType b) {
  if (a > b) std::swap(a, b);
  return b == GeomType::kSphere && (a == GeomType::kSphere || a == GeomType::kPlane);
}

// Frames, dof axes and body velocities at (qpos, qvel).
template <class S>
void impact_kinematics(const RigidModel& m, const RigidTree& t, const RigidConstants<S>& c, const S* qpos, const S* qvel,
                       RigidWorkspace<S>& w) {
  forward_kinematics(m, qpos, w);
  inertias_and_axes(m, c, w);
  body_velocities(m, t, qvel, w);
}

// The time before `horizon` at which the pair first touches, its geoms moving at their current
// velocities; false when it does not (separating, missing, or later). A pair that already
// overlaps gets the negative time at which it touched (rounding, or an impact found at the very
// end of the last step), so that positions back up to the contact and its dependence on the
// state stays in the gradient; one that overlaps by more than a step `dt` of approach gets 0.
template <class S>
bool impact_time(const RigidModel& m, const GeomPair& pair, const RigidWorkspace<S>& w, const S& horizon, double dt,
                 S& time) {
  using std::sqrt;
  const Geom* ga = &m.geoms[static_cast<std::size_t>(pair.a)];
  const Geom* gb = &m.geoms[static_cast<std::size_t>(pair.b)];
  if (!impulse_supported(ga->type, gb->type)) return false;  // the scenario loader refuses these
  if (ga->type > gb->type) std::swap(ga, gb);  // the plane first, as collide_ordered has it
  const GeomFrame<S> fa = geom_frame(*ga, w), fb = geom_frame(*gb, w);
  const Vec3<S> dv = point_velocity(w, gb->body, fb.pos) - point_velocity(w, ga->body, fb.pos);
  if (ga->type == GeomType::kPlane) {
    const Vec3<S> n = fa.axis(2);
    const S d = dot(n, fb.pos - fa.pos) - gb->size[0];
    const S vn = dot(n, dv);
    if (value_of(vn) >= 0.0) return false;
    time = d / (-1.0 * vn);
  } else {
    const Vec3<S> dx = fb.pos - fa.pos;
    const double reach = ga->size[0] + gb->size[0];
    const S b = dot(dx, dv);
    if (value_of(b) >= 0.0) return false;
    const S gap = dot(dx, dx) - reach * reach;
    const S disc = b * b - dot(dv, dv) * gap;
    // Missing, or grazing (no normal speed at contact, and sqrt's slope there is infinite).
    if (value_of(disc) <= 0.0) return false;
    time = gap / (sqrt(disc) - b);  // the smaller root, without cancellation
  }
  if (value_of(time) < -dt) time = S(0.0);
  return value_of(time) < value_of(horizon);
}

// The contact Jacobian row along world direction dir at world point p: row[d] is the velocity
// of body b's point p relative to body a's, along dir, per unit of dof d.
template <class S>
void contact_jacobian(const RigidTree& t, const RigidWorkspace<S>& w, int body_a, int body_b, const Vec3<S>& p,
                      const Vec3<S>& dir, S* row) {
  for (int d = 0; d < t.nv; ++d) row[d] = S(0.0);
  for (const auto& [body, sign] : {std::pair{body_b, 1.0}, std::pair{body_a, -1.0}})
    for (int d = t.body_last_dof[static_cast<std::size_t>(body)]; d >= 0; d = t.dof_parent[static_cast<std::size_t>(d)]) {
      const Spatial<S>& axis = w.axis[static_cast<std::size_t>(d)];
      row[d] = row[d] + sign * dot(dir, axis.bottom + cross(axis.top, p));
    }
}

// For the contact Jacobian row `row`: response = M^-1 row^T (M's Cholesky factor in
// w.mass_matrix); returns row M^-1 row^T, the inverse of the mass the contact moves along it.
template <class S>
S contact_response(const RigidTree& t, const RigidWorkspace<S>& w, const S* row, S* response) {
  for (int d = 0; d < t.nv; ++d) response[d] = row[d];
  cholesky_solve(w.mass_matrix.data(), t.nv, response);
  S inverse_mass(0.0);
  for (int d = 0; d < t.nv; ++d) inverse_mass = inverse_mass + row[d] * response[d];
  return inverse_mass;
}

// The restitution and friction impulses of the pair at contact point p with normal n (a to b),
// applied to qvel; frames and axes at the impact configuration and M's Cholesky factor in
// w.mass_matrix. Does nothing to a separating pair. Friction follows the normal impulse and
// takes the two tangent directions t1, t2 each on its own (exact where they do not couple
// through M, as for balls on slides): lambda_i = -(J_i v) / (J_i M^-1 J_i^T) stops the
// sliding, and the pair is scaled back into the cone |lambda_t| <= mu lambda. No sliding
// direction is normalised, so a contact that hits head on (no sliding) keeps the derivative of
// friction's grip.
template <class S>
void resolve_impact(const RigidModel& m, const RigidTree& t, const RigidConstants<S>& c, const GeomPair& pair,
                    const Vec3<S>& p, const Vec3<S>& n, S* qvel, RigidWorkspace<S>& w) {
  using std::sqrt;
  const auto nv = static_cast<std::size_t>(t.nv);
  const int body_a = m.geoms[static_cast<std::size_t>(pair.a)].body, body_b = m.geoms[static_cast<std::size_t>(pair.b)].body;
  S* row = w.jacobian.data();
  S* response = w.response.data();
  contact_jacobian(t, w, body_a, body_b, p, n, row);
  S vn(0.0);
  for (std::size_t d = 0; d < nv; ++d) vn = vn + row[d] * qvel[d];
  if (value_of(vn) >= 0.0) return;
  const S inverse_mass = contact_response(t, w, row, response);
  if (value_of(inverse_mass) <= 1e-300) return;  // no dof moves the contact along n
  const S normal = -1.0 * (1.0 + c.restitution[0]) * vn / inverse_mass;
  const S& mu_a = c.geom_friction[static_cast<std::size_t>(pair.a)];
  const S& mu_b = c.geom_friction[static_cast<std::size_t>(pair.b)];
  const S mu = value_of(mu_a) >= value_of(mu_b) ? mu_a : mu_b;
  for (std::size_t d = 0; d < nv; ++d) qvel[d] = qvel[d] + normal * response[d];
  if (value_of(mu) > 0.0) {
    // Tangents from the world axis least aligned with n.
    const int k = std::abs(value_of(n.c[0])) < 0.6 ? 0 : 1;
    const Vec3<S> along = Vec3<S>::unit(k) - n.c[k] * n;
    const Vec3<S> tangents[2] = {along / sqrt(dot(along, along)), cross(n, along / sqrt(dot(along, along)))};
    S lambda[2] = {S(0.0), S(0.0)};
    for (std::size_t i = 0; i < 2; ++i) {
      S* ti = row + (i + 1) * nv;
      contact_jacobian(t, w, body_a, body_b, p, tangents[i], ti);
      const S im = contact_response(t, w, ti, response + (i + 1) * nv);
      // No dof slides this way (up to rounding in n, which would otherwise give a huge impulse).
      if (value_of(im) <= 1e-9 * value_of(inverse_mass)) continue;
      S vt(0.0);
      for (std::size_t d = 0; d < nv; ++d) vt = vt + ti[d] * qvel[d];
      lambda[i] = -1.0 * vt / im;
    }
    const S grip2 = lambda[0] * lambda[0] + lambda[1] * lambda[1];
    const S cone = mu * normal;
    if (value_of(grip2) > value_of(cone * cone)) {
      const S scale = cone / sqrt(grip2);
      lambda[0] = lambda[0] * scale;
      lambda[1] = lambda[1] * scale;
    }
    for (std::size_t d = 0; d < nv; ++d) qvel[d] = qvel[d] + lambda[0] * response[nv + d] + lambda[1] * response[2 * nv + d];
  }
}

// Resolves the pair's impact at configuration qpos: its contact point and normal from
// collide(), the mass matrix there, then resolve_impact on every point the pair touches at.
template <class S>
void impact_at(const RigidModel& m, const RigidTree& t, const RigidConstants<S>& c, const GeomPair& pair, const S* qpos,
               S* qvel, RigidWorkspace<S>& w) {
  impact_kinematics(m, t, c, qpos, qvel, w);
  mass_matrix(t, c, w);
  if (!cholesky_factor(w.mass_matrix.data(), t.nv)) return;  // the step's own solve reports it
  const Geom& ga = m.geoms[static_cast<std::size_t>(pair.a)];
  const Geom& gb = m.geoms[static_cast<std::size_t>(pair.b)];
  collide(ga, geom_frame(ga, w), gb, geom_frame(gb, w),
          [&](const Vec3<S>& p, const Vec3<S>& n, const S&) { resolve_impact(m, t, c, pair, p, n, qvel, w); });
}

// next_qpos = qpos advanced over dt under velocities qvel, which every impact on the way
// changes in place, each at its time of impact (the law above).
template <class S>
void advance_with_impacts(const RigidModel& m, const RigidTree& t, const RigidConstants<S>& c, const S* qpos, S* qvel,
                          double dt, S* next_qpos, RigidWorkspace<S>& w) {
  S* q = w.impact_qpos.data();
  for (int i = 0; i < m.nq; ++i) q[i] = qpos[i];
  S remaining(dt);
  for (int impacts = 0; impacts < kMaxImpactsPerStep; ++impacts) {
    impact_kinematics(m, t, c, q, qvel, w);
    const GeomPair* first = nullptr;
    S first_time = remaining;
    for (const GeomPair& pair : m.contact_pairs) {
      S time;
      if (impact_time(m, pair, w, first_time, dt, time)) first = &pair, first_time = time;
    }
    if (first == nullptr) break;
    integrate_positions(m, q, qvel, first_time, q);
    remaining = remaining - first_time;
    impact_at(m, t, c, *first, q, qvel, w);
  }
  integrate_positions(m, q, qvel, remaining, next_qpos);
}

// The naive variant: next_qpos = qpos advanced over the whole of dt, then every pair that
// overlaps there gets its impulse, the positions left as they are.
template <class S>
void advance_then_impulse(const RigidModel& m, const RigidTree& t, const RigidConstants<S>& c, const S* qpos, S* qvel,
                          double dt, S* next_qpos, RigidWorkspace<S>& w) {
  integrate_positions(m, qpos, qvel, dt, next_qpos);
  forward_kinematics(m, next_qpos, w);  // impacts change velocities only, so the frames stay
  for (const GeomPair& pair : m.contact_pairs) {
    const Geom& ga = m.geoms[static_cast<std::size_t>(pair.a)];
    const Geom& gb = m.geoms[static_cast<std::size_t>(pair.b)];
    bool overlaps = false;
    collide(ga, geom_frame(ga, w), gb, geom_frame(gb, w),
            [&](const Vec3<S>&, const Vec3<S>&, const S& d) { overlaps = overlaps || value_of(d) < 0.0; });
    if (overlaps) impact_at(m, t, c, pair, next_qpos, qvel, w);
  }
}

}  // namespace simgrad::rigid
