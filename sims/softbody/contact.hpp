// Contact of nodes with static planes (ground, walls), in three models:
//   penalty         a force k * softplus(-gap) along the normal plus smoothed Coulomb friction,
//                   added before integration; its hard twin uses max(0, -gap) (sharpness <= 0).
//   time_of_impact  a node whose step crosses the plane moves ballistically to the plane, at the
//                   time of impact, and leaves with the reflected velocity (restitution, Coulomb
//                   friction) for the rest of the step. Position and velocity are continuous in
//                   the initial conditions, so a bounce gets the right gradient, where a plain
//                   reflection gets the wrong sign.
//   projection      velocity projection as in DiffTaichi's mass_spring_simple: a node past the
//                   plane and moving into it has its normal velocity reflected with restitution
//                   (0: removed), and friction reduces the tangential velocity by friction times
//                   the change of normal speed. The position is not corrected: with restitution
//                   this is the naive bounce whose gradient has the wrong sign.
//   impact_stop     DiffTaichi's mass_spring time of impact: a node whose step (at its new
//                   velocity) crosses the plane moving into it faster than 1e-4 stops there, at
//                   the time of impact, with the velocity an impact leaves (restitution and
//                   Coulomb friction as above; 0 and sticking friction stop it dead). A node
//                   resting on the plane stays on it.
#pragma once

#include "core/local_ad.hpp"
#include "core/relax.hpp"
#include "core/vec.hpp"

namespace simgrad::softbody {

enum class ContactModel { kPenalty, kTimeOfImpact, kProjection, kImpactStop };

template <int D>
struct ContactPlane {
  Vec<double, D> normal;     // unit, pointing into free space
  double offset = 0.0;       // free space is dot(normal, x) >= offset
  double friction = 0.0;     // Coulomb coefficient
  double restitution = 0.0;  // 0 stops the normal motion, 1 bounces elastically
  ContactModel model = ContactModel::kPenalty;
};

// A static axis-aligned box [lo, hi] with penalty contact: a node meets the plane of the face it
// is farthest in front of (exactly the nearest face from inside; outside, the largest of the
// faces' signed distances), so within each face's region the force is that of a penalty plane.
template <int D>
struct ContactBox {
  Vec<double, D> lo, hi;
  double friction = 0.0;

  // The penalty plane that acts on a node at x.
  ContactPlane<D> face_plane(const Vec<double, D>& x) const {
    ContactPlane<D> plane;
    plane.friction = friction;
    double farthest = -1e300;
    for (int axis = 0; axis < D; ++axis)
      for (const double side : {-1.0, 1.0}) {
        const double offset = side < 0.0 ? -lo[axis] : hi[axis];  // free side: side * x >= offset
        const double gap = side * x[axis] - offset;
        if (gap > farthest) {
          farthest = gap;
          plane.normal = side * Vec<double, D>::unit(axis);
          plane.offset = offset;
        }
      }
    return plane;
  }
};

// The value of a vector, for choosing a piece of a piecewise function.
template <class S, int D>
Vec<double, D> values_of(const Vec<S, D>& v) {
  Vec<double, D> r;
  for (int i = 0; i < D; ++i) r[i] = value_of(v[i]);
  return r;
}

// Penalty parameters shared by every penalty plane.
struct PenaltySettings {
  double stiffness = 1e4;        // force per unit penetration
  double sharpness = 1e3;        // softplus beta (1/length); <= 0 for the hard twin
  double friction_speed = 1e-2;  // tangential speed below which friction is smoothed away

  // A copy with the softplus at its hard twin, the plain ramp k max(0, -gap).
  PenaltySettings hard_twin() const {
    PenaltySettings hard = *this;
    hard.sharpness = 0.0;
    return hard;
  }
};

// The normal part of a penalty plane's force, f_n = k softplus(-gap), and its slope d f_n / d gap,
// from one exponential; f_n is bit for bit the one penalty_contact_force uses. The integrate
// kernel keeps both per node in the step's residual, so its adjoint need not recompute them.
struct PenaltyNormal {
  double force = 0.0;
  double slope = 0.0;
};
template <int D>
PenaltyNormal penalty_normal(const ContactPlane<D>& plane, const PenaltySettings& settings, const Vec<double, D>& x) {
  const double gap = dot(plane.normal, x) - plane.offset;
  if (settings.sharpness > 0.0) {
    const relax::ValueAndSlope sp = relax::softplus_with_slope(-gap, settings.sharpness);
    return {settings.stiffness * sp.value, -settings.stiffness * sp.slope};
  }
  if (gap < 0.0) return {settings.stiffness * -gap, -settings.stiffness};
  return {};
}

// Penalty contact force on a node moving with v, given the normal force: the normal force along
// the normal plus smoothed Coulomb friction against the tangential velocity.
template <class S, int D>
[[gnu::always_inline]] inline Vec<S, D> penalty_force_with_normal(const ContactPlane<D>& plane,
                                                                   const PenaltySettings& settings,
                                                                   const S& normal_force, const Vec<S, D>& v) {
  using std::sqrt;
  Vec<S, D> force = normal_force * plane.normal;
  // With no normal force the friction term is exactly zero: skip it.
  if (plane.friction > 0.0 && value_of(normal_force) != 0.0) {
    const Vec<S, D> tangential = v - dot(plane.normal, v) * plane.normal;
    const S speed = sqrt(dot(tangential, tangential) + settings.friction_speed * settings.friction_speed);
    force -= (plane.friction * normal_force / speed) * tangential;
  }
  return force;
}

// Penalty contact force on a node at x moving with v.
template <class S, int D>
[[gnu::always_inline]] inline Vec<S, D> penalty_contact_force(const ContactPlane<D>& plane, const PenaltySettings& settings,
                                                               const Vec<S, D>& x, const Vec<S, D>& v) {
  const S gap = dot(plane.normal, x) - plane.offset;
  return penalty_force_with_normal(plane, settings, relax::penalty_force(gap, settings.stiffness, settings.sharpness), v);
}

// The velocity after an impact: normal part reflected with restitution, tangential part reduced
// by Coulomb friction with the impulse of the normal change (never reversed).
template <class S, int D>
Vec<S, D> impact_velocity(const ContactPlane<D>& plane, const Vec<S, D>& v) {
  using std::sqrt;
  const S vn = dot(plane.normal, v);
  const Vec<S, D> tangential = v - vn * plane.normal;
  Vec<S, D> out = (-plane.restitution * vn) * plane.normal;
  const S t2 = dot(tangential, tangential);
  if (value_of(t2) > 0.0) {
    const S reduction = (plane.friction * (1.0 + plane.restitution)) * (-vn) / sqrt(t2);
    if (reduction < 1.0) out += (1.0 - reduction) * tangential;
  }
  return out;
}

// Resolves a non-penalty plane for a node that started the step at x with velocity v0 and, by
// the integrator, ended it at x_next with velocity v; may change x_next and v.
template <class S, int D>
void resolve_contact(const ContactPlane<D>& plane, double dt, const Vec<S, D>& x, const Vec<S, D>& v0,
                     Vec<S, D>& v, Vec<S, D>& x_next) {
  using std::sqrt;
  const S vn = dot(plane.normal, v);
  if (!(dot(plane.normal, x_next) < plane.offset && vn < 0.0)) return;
  if (plane.model == ContactModel::kImpactStop) {
    if (!(vn < -1e-4)) return;
    const S impact_time = -(dot(plane.normal, x) - plane.offset) / vn;
    x_next = x + impact_time * v;
    v = impact_velocity(plane, v);
    return;
  }
  if (plane.model == ContactModel::kProjection) {
    const Vec<S, D> tangential = v - vn * plane.normal;
    v = (-plane.restitution * vn) * plane.normal + tangential;
    const S t2 = dot(tangential, tangential);
    if (value_of(t2) > 0.0) {
      const S speed = sqrt(t2);
      const S reduced = smin(speed, (plane.friction * (1.0 + plane.restitution)) * (-vn));
      v = v - (reduced / speed) * tangential;
    }
    return;
  }
  // Time of impact: within the step the node moves ballistically with the step's constant
  // acceleration a = (v - v0) / dt, so the impact time and the impact velocity, hence the
  // bounce, vary continuously with the initial conditions. The impact time s is the smaller
  // root of gap + v0n s + a_n s^2 / 2 = 0, in the cancellation-free form.
  const Vec<S, D> a = (v - v0) / dt;
  const S gap = dot(plane.normal, x) - plane.offset;
  const S v0n = dot(plane.normal, v0);
  const S an = dot(plane.normal, a);
  S s = S(0.0);
  if (gap > 0.0) {
    const S disc = v0n * v0n - 2.0 * an * gap;
    const S denom = disc > 0.0 ? sqrt(disc) - v0n : -v0n;
    s = denom > 0.0 ? 2.0 * gap / denom : S(dt);
    if (s > dt) s = S(dt);
  }
  const S rest = dt - s;
  const Vec<S, D> v_out = impact_velocity(plane, v0 + s * a);
  x_next = x + s * v0 + (0.5 * s * s) * a + rest * v_out + (0.5 * rest * rest) * a;
  v = v_out + rest * a;
}

}  // namespace simgrad::softbody
