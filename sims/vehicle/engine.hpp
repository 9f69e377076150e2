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

// Torque at `rpm`: a cubic Hermite spline with Catmull-Rom slopes through the table (C1, so the
// gradient in rpm is continuous), held flat outside the table's range.
template <class S>
S curve_torque(const TorqueCurve& curve, const S& rpm) {
  const std::vector<double>& x = curve.rpm;
  const std::vector<double>& y = curve.torque;
  const std::size_t n = x.size();
  const double r = value_of(rpm);
  if (r <= x.front()) return S(0.0) * rpm + y.front();
  if (r >= x.back()) return S(0.0) * rpm + y.back();
  std::size_t i = 0;
  while (i + 2 < n && r >= x[i + 1]) ++i;
  // Slopes at the ends of segment i: centred differences, one-sided at the table's ends.
  auto slope = [&](std::size_t k) {
    const std::size_t a = k == 0 ? 0 : k - 1, b = k + 1 == n ? k : k + 1;
    return (y[b] - y[a]) / (x[b] - x[a]);
  };
  const double h = x[i + 1] - x[i];
  const S u = (rpm - x[i]) / h;
  const S u2 = u * u, u3 = u2 * u;
  return (2.0 * u3 - 3.0 * u2 + 1.0) * y[i] + (u3 - 2.0 * u2 + u) * (h * slope(i)) +
         (-2.0 * u3 + 3.0 * u2) * y[i + 1] + (u3 - u2) * (h * slope(i + 1));
}

// Drive force of a DC motor at duty cycle `duty` (Liniger, Domahidi, Morari 2015):
// (Cm1 - Cm2 vx) duty.
template <class S>
S dc_motor_force(const S& cm1, const S& cm2, const S& vx, const S& duty) {
  return (cm1 - cm2 * vx) * duty;
}

}  // namespace simgrad::vehicle
