// Engines: a torque curve read from a table with smooth interpolation (combustion engine), and
// the DC motor of small racing cars (Liniger et al.), whose force falls linearly with speed.
#pragma once

#include <cstddef>
#include <vector>

#include "core/local_ad.hpp"

namespace simgrad::vehicle {

// Full-load torque (N m) against engine speed (rpm), rpm ascending, at least two points.
struct TorqueCurve {
  std::vector<double> rpm;
  std::vector<double> torque;
};

// The table segment holding an rpm inside the table's range: its first row, its width, and the
// Catmull-Rom slopes at its ends (centred differences, one-sided at the table's ends).
struct CurveSegment {
  std::size_t i;
  double h, slope_start, slope_end;
};
inline CurveSegment curve_segment(const TorqueCurve& curve, double rpm) {
  const std::vector<double>& x = curve.rpm;
  const std::vector<double>& y = curve.torque;
  const std::size_t n = x.size();
  std::size_t i = 0;
  while (i + 2 < n && rpm >= x[i + 1]) ++i;
  auto slope = [&](std::size_t k) {
    const std::size_t a = k == 0 ? 0 : k - 1, b = k + 1 == n ? k : k + 1;
    return (y[b] - y[a]) / (x[b] - x[a]);
  };
  return {i, x[i + 1] - x[i], slope(i), slope(i + 1)};
}

// Torque at `rpm`: a cubic Hermite spline with Catmull-Rom slopes through the table (C1, so the
// gradient in rpm is continuous), held flat outside the table's range.
template <class S>
S curve_torque(const TorqueCurve& curve, const S& rpm) {
  const std::vector<double>& x = curve.rpm;
  const std::vector<double>& y = curve.torque;
  const double r = value_of(rpm);
  if (r <= x.front()) return S(0.0) * rpm + y.front();
  if (r >= x.back()) return S(0.0) * rpm + y.back();
  const CurveSegment g = curve_segment(curve, r);
  const std::size_t i = g.i;
  const double h = g.h;
  const S u = (rpm - x[i]) / h;
  const S u2 = u * u, u3 = u2 * u;
  return (2.0 * u3 - 3.0 * u2 + 1.0) * y[i] + (u3 - 2.0 * u2 + u) * (h * g.slope_start) +
         (-2.0 * u3 + 3.0 * u2) * y[i + 1] + (u3 - u2) * (h * g.slope_end);
}

// d curve_torque / d rpm (zero outside the table, where the torque is held flat).
inline double curve_torque_slope(const TorqueCurve& curve, double rpm) {
  const std::vector<double>& x = curve.rpm;
  const std::vector<double>& y = curve.torque;
  if (rpm <= x.front() || rpm >= x.back()) return 0.0;
  const CurveSegment g = curve_segment(curve, rpm);
  const std::size_t i = g.i;
  const double h = g.h, u = (rpm - x[i]) / h;
  return ((6.0 * u * u - 6.0 * u) * y[i] + (3.0 * u * u - 4.0 * u + 1.0) * (h * g.slope_start) +
          (6.0 * u - 6.0 * u * u) * y[i + 1] + (3.0 * u * u - 2.0 * u) * (h * g.slope_end)) /
         h;
}

// Drive force of a DC motor at duty cycle `duty` (Liniger, Domahidi, Morari 2015):
// (Cm1 - Cm2 vx) duty.
template <class S>
S dc_motor_force(const S& cm1, const S& cm2, const S& vx, const S& duty) {
  return (cm1 - cm2 * vx) * duty;
}

}  // namespace simgrad::vehicle
