// Member checks: force over strength as the member's stress ratio (1 = at its limit). Tension
// against yield; compression against buckling, with Euler's load for slender members and
// Johnson's parabola for stocky ones (the inelastic column curve, tangent to Euler's at half the
// yield stress, so the ratio is smooth in the member's length and section); a frame member adds
// its bending stress to its axial ratio (a linear interaction).
#pragma once

#include <cmath>
#include <numbers>

#include "core/local_ad.hpp"
#include "sims/structure/section_catalogue.hpp"

namespace simgrad::structure {

// Euler's critical load pi^2 E I / (K L)^2 of a pin-ended column of effective length K L.
template <class S>
S euler_load(const S& young, const S& inertia, const S& length, double length_factor) {
  const S kl = length_factor * length;
  return std::numbers::pi * std::numbers::pi * young * inertia / (kl * kl);
}

// The critical compressive stress: Euler's stress where it is below half the yield stress,
// Johnson's parabola fy (1 - fy / (4 sigma_e)) above it (never more than fy).
template <class S>
S critical_stress(const S& euler_stress, const S& yield) {
  if (euler_stress <= 0.5 * yield) return euler_stress;
  return yield * (1.0 - yield / (4.0 * euler_stress));
}

// Whether a member is in tension or compression, and what limits it.
enum class MemberState { tension, compression };

template <class S>
struct StressRatio {
  S ratio;
  MemberState state;
};

// What a member can carry: axial force in tension (fy A) and in compression (the critical
// stress times A, or fy A with buckling off), and bending moment (fy S). They do not depend on
// the load case, so a rating computes them once per member.
template <class S>
struct MemberStrengths {
  S tension, compression, bending;
};

template <class S>
MemberStrengths<S> member_strengths(const MemberProperties<S>& p, const S& length, double length_factor, bool buckling) {
  const S compression = buckling ? critical_stress(euler_load(p.young, p.inertia, length, length_factor) / p.area, p.yield) * p.area
                                 : p.yield * p.area;
  return {p.yield * p.area, compression, p.yield * p.modulus};
}

// The member's stress ratio under axial force `axial` (tension positive) and largest end moment
// `moment` (frames): force over strength, the bending ratio added in a frame.
template <class S, class F>
auto ratio_of(const MemberStrengths<S>& strengths, const F& axial, const F& moment, bool frame)
    -> StressRatio<decltype(S() * F())> {
  using std::abs;
  using R = decltype(S() * F());
  StressRatio<R> r{axial >= 0.0 ? R(axial / strengths.tension) : R(-axial / strengths.compression),
                   axial >= 0.0 ? MemberState::tension : MemberState::compression};
  if (frame) r.ratio = r.ratio + abs(moment) / strengths.bending;
  return r;
}

// The stress ratio from the member's properties; with `buckling` off, compression is checked
// against yield like tension.
template <class S, class F>
auto stress_ratio(const MemberProperties<S>& p, const S& length, double length_factor, const F& axial,
                  const F& moment, bool frame, bool buckling) -> StressRatio<decltype(S() * F())> {
  return ratio_of(member_strengths(p, length, length_factor, buckling), axial, moment, frame);
}

}  // namespace simgrad::structure
