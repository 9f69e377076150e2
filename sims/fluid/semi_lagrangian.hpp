// The semi-Lagrangian sample: where a staggered sample's value came from, traced back along the
// velocity in cell units (no divisions in the inner loops), and the bilinear value there. The
// forward pass of advect.hpp's semi-Lagrangian scheme, per sample, written once for the host and
// the device (core/portable.hpp).
#pragma once

#include "core/portable.hpp"
#include "sims/fluid/grid.hpp"

namespace simgrad::fluid {

// The bilinear value of lattice l's field f at (x, y) in cell units (length / h): stencil_at and
// apply in one, without building the stencil (the forward pass's inner loop).
SIMGRAD_HD_INLINE double sample(const Lattice& l, double x, double y, const double* f) {
  int i0, i1, j0, j1;
  double fx, fy;
  bool clamped;
  locate(x - l.ox, l.cx, l.wrap_x, i0, i1, fx, clamped);
  locate(y - l.oy, l.cy, l.wrap_y, j0, j1, fy, clamped);
  const double* r0 = f + static_cast<Index>(j0) * l.cx;
  const double* r1 = f + static_cast<Index>(j1) * l.cx;
  return (1 - fx) * (1 - fy) * r0[i0] + fx * (1 - fy) * r0[i1] + (1 - fx) * fy * r1[i0] + fx * fy * r1[i1];
}

// The foot (x, y), in cell units, of the trace back of sample (i, j) of lattice l through the
// velocity (u on lattice ul, v on vl) over scale = dt / h: one Euler step, or the midpoint rule.
SIMGRAD_HD inline void trace_foot(const Lattice& ul, const Lattice& vl, const Lattice& l, const double* u,
                                  const double* v, double scale, int i, int j, bool euler, double& x, double& y) {
  x = i + l.ox;
  y = j + l.oy;
  if (euler) {
    const double vx = sample(ul, x, y, u), vy = sample(vl, x, y, v);
    x -= scale * vx;
    y -= scale * vy;
    return;
  }
  const double xm = x - 0.5 * scale * sample(ul, x, y, u), ym = y - 0.5 * scale * sample(vl, x, y, v);
  x -= scale * sample(ul, xm, ym, u);
  y -= scale * sample(vl, xm, ym, v);
}

}  // namespace simgrad::fluid
