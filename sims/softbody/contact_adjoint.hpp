// Hand-written adjoint of the penalty contact force (contact.hpp), for the integrate kernel's
// hand-written adjoint. With gap = n.x - offset, f_n = k softplus(-gap), v_t = v - (n.v) n and
// s = sqrt(|v_t|^2 + eps^2):   P = f_n n - (mu f_n / s) v_t.
#pragma once

#include "core/relax.hpp"
#include "sims/softbody/contact.hpp"

namespace simgrad::softbody {

// Adds the adjoints of x and v given the adjoint a_p of the force penalty_contact_force(x, v).
template <int D>
void penalty_contact_adjoint(const ContactPlane<D>& plane, const PenaltySettings& settings, const Vec<double, D>& x,
                             const Vec<double, D>& v, const Vec<double, D>& a_p, Vec<double, D>& a_x,
                             Vec<double, D>& a_v) {
  const Vec<double, D>& n = plane.normal;
  const double gap = dot(n, x) - plane.offset;
  // f_n = k softplus(-gap) and d f_n / d gap = -k sigmoid(-beta gap), or -k [gap < 0] for the
  // hard twin.
  double fn = 0.0, dfn = 0.0;
  if (settings.sharpness > 0.0) {
    const relax::ValueAndSlope sp = relax::softplus_with_slope(-gap, settings.sharpness);
    fn = settings.stiffness * sp.value;
    dfn = -settings.stiffness * sp.slope;
  } else if (gap < 0.0) {
    fn = -settings.stiffness * gap;
    dfn = -settings.stiffness;
  }
  if (fn == 0.0 && dfn == 0.0) return;  // no contact at all
  double a_fn = dot(a_p, n);
  if (plane.friction > 0.0 && fn != 0.0) {
    const Vec<double, D> vt = v - dot(n, v) * n;
    const double s = std::sqrt(dot(vt, vt) + settings.friction_speed * settings.friction_speed);
    const double q = plane.friction * fn / s;
    const double ap_vt = dot(a_p, vt);
    a_fn -= plane.friction / s * ap_vt;
    // P depends on v_t directly (-q v_t) and through s (+ mu f_n / s^2 v_t, ds/dv_t = v_t / s).
    const Vec<double, D> a_vt = -q * a_p + (q / (s * s) * ap_vt) * vt;
    a_v += a_vt - dot(a_vt, n) * n;
  }
  a_x += (a_fn * dfn) * n;
}

}  // namespace simgrad::softbody
