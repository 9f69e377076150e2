// The node kernel: semi-implicit (symplectic) Euler with velocity drag, gravity, the gathered
// spring forces and contact with static planes.
//   v' = exp(-drag dt) v + dt (w f + g),   x' = x + dt v',   then plane contact on (x', v').
// A node with inverse mass w = 0 is pinned.
#pragma once

#include <span>
#include <type_traits>

#include "core/kernel.hpp"
#include "sims/softbody/contact.hpp"
#include "sims/softbody/contact_adjoint.hpp"

namespace simgrad::softbody {

template <int D>
struct Integrate {
  Field<D> x, v, force;     // per node: state and gathered spring forces
  Field<1> inverse_mass;    // per node
  Field<D> gravity;         // shared
  Field<D> x_next, v_next;  // out
  std::span<const ContactPlane<D>> planes;
  std::span<const ContactBox<D>> boxes;  // static boxes, penalty contact
  PenaltySettings penalty;
  double dt = 0.0;
  double velocity_decay = 1.0;  // exp(-drag dt)
  bool has_impact_planes = false;  // any time-of-impact or projection plane
  // Per node and penalty plane, that plane's PenaltyNormal: written by the forward pass when the
  // rollout keeps a residual, read by the hand-written adjoint (null: not kept).
  PenaltyNormal* penalty_record = nullptr;
  int penalty_planes = 0;

  template <class E>
  [[gnu::always_inline]] void operator()(E& e) const {
    using S = typename E::Scalar;
    const Vec<S, D> xi = e.own(x);
    const Vec<S, D> vi = e.own(v);
    if (e.own(inverse_mass) == 0.0) {
      e.write(x_next, xi);
      e.write(v_next, Vec<S, D>::zero());
      return;
    }
    Vec<S, D> f = e.own(force);
    // Plain values keep each penalty plane's normal part for the adjoint when asked to.
    PenaltyNormal* record = nullptr;
    if constexpr (std::is_same_v<S, double>)
      if (penalty_record != nullptr) record = penalty_record + e.index() * penalty_planes;
    for (const ContactPlane<D>& plane : planes) {
      if (plane.model != ContactModel::kPenalty) continue;
      if constexpr (std::is_same_v<S, double>) {
        if (record != nullptr) {
          *record = penalty_normal(plane, penalty, xi);
          f += penalty_force_with_normal(plane, penalty, record++->force, vi);
          continue;
        }
      }
      f += penalty_contact_force(plane, penalty, xi, vi);
    }
    for (const ContactBox<D>& box : boxes) f += penalty_contact_force(box.face_plane(values_of(xi)), penalty, xi, vi);
    Vec<S, D> vn = velocity_decay * vi + dt * (e.own(inverse_mass) * f + e.shared(gravity));
    Vec<S, D> xn = xi + dt * vn;
    for (const ContactPlane<D>& plane : planes)
      if (plane.model != ContactModel::kPenalty) resolve_contact(plane, dt, xi, vi, vn, xn);
    e.write(x_next, xn);
    e.write(v_next, vn);
  }

  // Hand-written adjoint for nodes touching only penalty planes (the common case, and the one
  // benchmarks time); a node that hits a time-of-impact or projection plane this step is left to
  // the derived adjoint. The tests compare both on every path.
  template <class E>
  void adjoint(E& e) const {
    using V = Vec<double, D>;
    const V xi = e.own(x);
    const V vi = e.own(v);
    const V ax_next = e.output_adjoint(x_next);
    const V av_next = e.output_adjoint(v_next);
    const double w = e.own(inverse_mass);
    if (w == 0.0) {
      e.add_own(x, ax_next);
      return;
    }
    // The total force is needed only to find contacts with non-penalty planes and for the
    // adjoint of the inverse mass; without either, the penalty forces are not recomputed.
    V f = e.own(force);
    if (has_impact_planes || inverse_mass.adjoint != nullptr) {
      for (const ContactPlane<D>& plane : planes)
        if (plane.model == ContactModel::kPenalty) f += penalty_contact_force(plane, penalty, xi, vi);
      for (const ContactBox<D>& box : boxes) f += penalty_contact_force(box.face_plane(xi), penalty, xi, vi);
      const V vn = velocity_decay * vi + dt * (w * f + e.shared(gravity));
      const V xn = xi + dt * vn;
      for (const ContactPlane<D>& plane : planes)
        if (plane.model != ContactModel::kPenalty && dot(plane.normal, xn) < plane.offset && dot(plane.normal, vn) < 0.0)
          return e.derive(*this);
    }

    // x' = x + dt v',  v' = decay v + dt (w f_total + g).
    const V a_vn = av_next + dt * ax_next;
    const V a_f = (dt * w) * a_vn;
    V a_x = ax_next;
    V a_v = velocity_decay * a_vn;
    e.add_own(inverse_mass, dt * dot(f, a_vn));
    e.add_shared(gravity, dt * a_vn);
    e.add_own(force, a_f);
    const PenaltyNormal* record = penalty_record == nullptr ? nullptr : penalty_record + e.index() * penalty_planes;
    for (const ContactPlane<D>& plane : planes)
      if (plane.model == ContactModel::kPenalty) {
        const PenaltyNormal normal = record != nullptr ? *record++ : penalty_normal(plane, penalty, xi);
        penalty_contact_adjoint(plane, penalty, normal, vi, a_f, a_x, a_v);
      }
    for (const ContactBox<D>& box : boxes) penalty_contact_adjoint(box.face_plane(xi), penalty, xi, vi, a_f, a_x, a_v);
    e.add_own(x, a_x);
    e.add_own(v, a_v);
  }
};

// The node kernel's body for one step: state, forces and outputs, with a model's inverse masses,
// gravity, planes, penalty settings, time step and per-step velocity decay.
template <int D, class Model>
Integrate<D> integrate_step(Model& model, Field<D> x, Field<D> v, Field<D> force, Field<D> x_next, Field<D> v_next,
                            double velocity_decay) {
  Integrate<D> body;
  body.x = x;
  body.v = v;
  body.force = force;
  body.inverse_mass = model.inverse_mass.field();
  body.gravity = model.gravity.field();
  body.x_next = x_next;
  body.v_next = v_next;
  body.planes = model.planes;
  if constexpr (requires { model.boxes; }) body.boxes = model.boxes;
  body.penalty = model.settings.penalty;
  body.dt = model.settings.dt;
  body.velocity_decay = velocity_decay;
  for (const ContactPlane<D>& plane : model.planes)
    body.has_impact_planes = body.has_impact_planes || plane.model != ContactModel::kPenalty;
  return body;
}

}  // namespace simgrad::softbody
