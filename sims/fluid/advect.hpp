// Semi-Lagrangian advection on the MAC grid: every sample of a staggered quantity is traced back
// along the velocity for one step (midpoint rule: x - dt u(x - dt u(x) / 2)) and the quantity is
// sampled there bilinearly.
// The adjoint scatters into the sampled quantity and the velocity; it runs serially, in sample
// order, so it is the same bits for any thread count without atomics.
#pragma once

#include <span>

#include "sims/fluid/grid.hpp"

namespace simgrad::fluid {

// out = q traced back along (u, v) over dt, at every sample of lattice `l` (q lives on `l`).
void advect(const Grid& grid, const Lattice& l, std::span<const double> q, std::span<const double> u,
            std::span<const double> v, double dt, std::span<double> out);

// Adds the adjoint of advect to dq, du and dv, given d out.
void advect_adjoint(const Grid& grid, const Lattice& l, std::span<const double> q, std::span<const double> u,
                    std::span<const double> v, double dt, std::span<const double> dout, std::span<double> dq,
                    std::span<double> du, std::span<double> dv);

}  // namespace simgrad::fluid
