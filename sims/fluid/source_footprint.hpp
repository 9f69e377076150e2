// Pieces of the sources' forcing shared by the 2D and 3D grids: the smooth offset from a
// source's centre along one axis, and the adjoint of a scheduled value.
#pragma once

#include <cmath>
#include <numbers>

#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

// The offset d of a sample from a source's centre along one axis, and its derivative with
// respect to the centre's coordinate. Along a periodic axis of length L it is replaced by
// (L / pi) sin(pi d / L): periodic and smooth everywhere (a nearest-image offset jumps half a
// domain away), and equal to d to second order near the source.
inline void axis_offset(double d, bool periodic, double length, double& offset, double& doffset_dc) {
  if (!periodic) {
    offset = d;
    doffset_dc = -1.0;
    return;
  }
  const double k = std::numbers::pi / length;
  offset = std::sin(k * d) / k;
  doffset_dc = -std::cos(k * d);
}

// Spreads the adjoint of source s's scheduled value onto its two knots.
template <class Model>
void add_to_knots(Array<1>& q, const Model& m, int s, int knot, double fraction, double adjoint) {
  double* a = q.adjoints().data() + static_cast<std::size_t>(s * m.knots);
  a[knot] += (1.0 - fraction) * adjoint;
  if (m.knots > 1) a[knot + 1] += fraction * adjoint;
}

}  // namespace simgrad::fluid
