// The node kernel: semi-implicit (symplectic) Euler with velocity drag, gravity, the gathered
// spring forces and contact with static planes.
//   v' = exp(-drag dt) v + dt (w f + g),   x' = x + dt v',   then plane contact on (x', v').
// A node with inverse mass w = 0 is pinned.
#pragma once

#include <span>

#include "core/kernel.hpp"
#include "sims/softbody/contact.hpp"

namespace simgrad::softbody {

template <int D>
struct Integrate {
  Field<D> x, v, force;     // per node: state and gathered spring forces
  Field<1> inverse_mass;    // per node
  Field<D> gravity;         // shared
  Field<D> x_next, v_next;  // out
  std::span<const ContactPlane<D>> planes;
  PenaltySettings penalty;
  double dt = 0.0;
  double velocity_decay = 1.0;  // exp(-drag dt)

  template <class E>
  void operator()(E& e) const {
    using S = typename E::Scalar;
    const Vec<S, D> xi = e.own(x);
    const Vec<S, D> vi = e.own(v);
    if (e.own(inverse_mass) == 0.0) {
      e.write(x_next, xi);
      e.write(v_next, Vec<S, D>::zero());
      return;
    }
    Vec<S, D> f = e.own(force);
    for (const ContactPlane<D>& plane : planes)
      if (plane.model == ContactModel::kPenalty) f += penalty_contact_force(plane, penalty, xi, vi);
    Vec<S, D> vn = velocity_decay * vi + dt * (e.own(inverse_mass) * f + e.shared(gravity));
    Vec<S, D> xn = xi + dt * vn;
    for (const ContactPlane<D>& plane : planes)
      if (plane.model != ContactModel::kPenalty) resolve_contact(plane, dt, xi, vi, vn, xn);
    e.write(x_next, xn);
    e.write(v_next, vn);
  }
};

}  // namespace simgrad::softbody
