// Hand-written adjoint of the penalty contact force (contact.hpp), for the integrate kernel's
// hand-written adjoint. With gap = n.x - offset, f_n = k softplus(-gap), v_t = v - (n.v) n and
// s = sqrt(|v_t|^2 + eps^2):   P = f_n n - (mu f_n / s) v_t.
#pragma once

#include "core/relax.hpp"
#include "sims/softbody/contact.hpp"

namespace simgrad::softbody {

// Adds the adjoints of x and v given the adjoint a_p of the force penalty_contact_force(x, v),
// whose normal part (penalty_normal) is `normal`.
template <int D>
void penalty_contact_adjoint(const ContactPlane<D>& plane, const PenaltySettings& settings, const PenaltyNormal& normal,
                             const Vec<double, D>& v, const Vec<double, D>& a_p, Vec<double, D>& a_x,
                             Vec<double, D>& a_v) {
  const Vec<double, D>& n = plane.normal;
  const double fn = normal.force, dfn = normal.slope;
  if (fn == 0.0 && dfn == 0.0) return;  // no contact at all
  double a_fn = dot(a_p, n);
  if (plane.friction > 0.0 && fn != 0.0) {
    const Vec<double, D> vt = v - dot(n, v) * n;
    // One division: the reciprocal of s serves all three terms.
    const double inv_s = 1.0 / std::sqrt(dot(vt, vt) + settings.friction_speed * settings.friction_speed);
    const double q = plane.friction * fn * inv_s;
    const double ap_vt = dot(a_p, vt);
    a_fn -= plane.friction * inv_s * ap_vt;
    // P depends on v_t directly (-q v_t) and through s (+ mu f_n / s^2 v_t, ds/dv_t = v_t / s).
    const Vec<double, D> a_vt = -q * a_p + (q * inv_s * inv_s * ap_vt) * vt;
    a_v += a_vt - dot(a_vt, n) * n;
  }
  a_x += (a_fn * dfn) * n;
}

// The same, with the normal part computed here from the position x.
template <int D>
void penalty_contact_adjoint(const ContactPlane<D>& plane, const PenaltySettings& settings, const Vec<double, D>& x,
                             const Vec<double, D>& v, const Vec<double, D>& a_p, Vec<double, D>& a_x,
                             Vec<double, D>& a_v) {
  penalty_contact_adjoint(plane, settings, penalty_normal(plane, settings, x), v, a_p, a_x, a_v);
}

}  // namespace simgrad::softbody
