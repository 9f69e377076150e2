// Scalar-generic smooth functions the vehicle parts share: the engine's local AD scalar has no
// atan or tan, and the vehicle needs smooth steps and signs where a hard one would make the
// gradient vanish (gear shifts, the low-speed blend, the sign of a resisting force).
#pragma once

#include <cmath>

#include "core/local_ad.hpp"

namespace simgrad::vehicle {

// atan(x) for double and for the local AD scalar (as atan2(x, 1), which it has).
inline double atan_of(double x) { return std::atan(x); }
inline ad::Var atan_of(const ad::Var& x) { return ad::atan2(x, ad::Var(1.0)); }

// tan(x) = sin / cos, for both scalars.
template <class S>
S tan_of(const S& x) {
  using std::cos;
  using std::sin;
  return sin(x) / cos(x);
}

// The logistic function; its argument is clamped so exp never overflows.
template <class S>
S sigmoid(const S& x) {
  using std::exp;
  if (value_of(x) < -40.0) return S(0.0) * x + std::exp(-40.0);
  return 1.0 / (1.0 + exp(-x));
}

// 0 below lo, 1 above hi, the C1 cubic 3u^2 - 2u^3 between.
template <class S>
S smoothstep(const S& x, double lo, double hi) {
  const double u = (value_of(x) - lo) / (hi - lo);
  if (u <= 0.0) return S(0.0);
  if (u >= 1.0) return S(1.0);
  const S v = (x - lo) / (hi - lo);
  return v * v * (3.0 - 2.0 * v);
}

// tanh(x / width): a sign that is smooth within `width` of zero.
template <class S>
S smooth_sign(const S& x, double width) {
  using std::tanh;
  return tanh(x / width);
}

// sqrt(x^2 + eps^2): |x| rounded off within eps of zero, never below eps.
template <class S>
S smooth_abs(const S& x, double eps) {
  using std::sqrt;
  return sqrt(x * x + eps * eps);
}

}  // namespace simgrad::vehicle
