// Contact of nodes with static planes (ground, walls), in three models:
//   penalty         a force k * softplus(-gap) along the normal plus smoothed Coulomb friction,
//                   added before integration; its hard twin uses max(0, -gap) (sharpness <= 0).
//   time_of_impact  a node whose step crosses the plane moves to the plane at the time of impact
//                   and leaves with the reflected velocity (restitution, Coulomb friction) for the
//                   rest of the step. The position is continuous in the initial conditions, so a
//                   bounce gets the right gradient, where a plain reflection gets the wrong sign.
//   projection      velocity projection as in DiffTaichi's mass_spring_simple: a node past the
//                   plane and moving into it loses its normal velocity, and friction reduces the
//                   tangential velocity by friction times the normal speed.
#pragma once

#include "core/local_ad.hpp"
#include "core/relax.hpp"
#include "core/vec.hpp"

namespace simgrad::softbody {

enum class ContactModel { kPenalty, kTimeOfImpact, kProjection };

template <int D>
struct ContactPlane {
  Vec<double, D> normal;     // unit, pointing into free space
  double offset = 0.0;       // free space is dot(normal, x) >= offset
  double friction = 0.0;     // Coulomb coefficient
  double restitution = 0.0;  // time_of_impact only: 0 sticks, 1 bounces elastically
  ContactModel model = ContactModel::kPenalty;
};

// Penalty parameters shared by every penalty plane.
struct PenaltySettings {
  double stiffness = 1e4;        // force per unit penetration
  double sharpness = 1e3;        // softplus beta (1/length); <= 0 for the hard twin
  double friction_speed = 1e-2;  // tangential speed below which friction is smoothed away
};

// Penalty contact force on a node at x moving with v.
template <class S, int D>
Vec<S, D> penalty_contact_force(const ContactPlane<D>& plane, const PenaltySettings& settings,
                                const Vec<S, D>& x, const Vec<S, D>& v) {
  using std::sqrt;
  const S gap = dot(plane.normal, x) - plane.offset;
  const S normal_force = relax::penalty_force(gap, settings.stiffness, settings.sharpness);
  Vec<S, D> force = normal_force * plane.normal;
  if (plane.friction > 0.0) {
    const Vec<S, D> tangential = v - dot(plane.normal, v) * plane.normal;
    const S speed = sqrt(dot(tangential, tangential) + settings.friction_speed * settings.friction_speed);
    force -= (plane.friction * normal_force / speed) * tangential;
  }
  return force;
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

// Resolves a non-penalty plane for a node that moved from x with velocity v to x_next this step;
// may change x_next and v.
template <class S, int D>
void resolve_contact(const ContactPlane<D>& plane, double dt, const Vec<S, D>& x, Vec<S, D>& v,
                     Vec<S, D>& x_next) {
  const S vn = dot(plane.normal, v);
  if (!(dot(plane.normal, x_next) < plane.offset && vn < 0.0)) return;
  if (plane.model == ContactModel::kProjection) {
    v = v - vn * plane.normal;
    const Vec<S, D> tangential = v;
    using std::sqrt;
    const S t2 = dot(tangential, tangential);
    if (value_of(t2) > 0.0) {
      const S speed = sqrt(t2);
      const S reduced = smin(speed, plane.friction * (-vn));
      v = v - (reduced / speed) * tangential;
    }
    return;
  }
  // Time of impact, clamped to the step: a node already inside is pushed out at once.
  S toi = (dot(plane.normal, x) - plane.offset) / (-vn);
  if (toi < 0.0) toi = S(0.0);
  if (toi > dt) toi = S(dt);
  const Vec<S, D> v_out = impact_velocity(plane, v);
  x_next = x + toi * v + (dt - toi) * v_out;
  v = v_out;
}

}  // namespace simgrad::softbody
