// Semi-Lagrangian advection on the 3D MAC grid, as in 2D (advect.hpp): every sample is traced
// back along the velocity with the midpoint rule and the quantity is sampled there trilinearly.
//
// The adjoint scatters into the sampled quantity and the velocity, in parallel without atomics:
// the samples are cut into slabs along z at least as thick as the trace reaches (from the
// largest speed), so a slab scatters into its own slab and its two neighbours only; slabs are
// coloured so that two slabs of one colour never reach the same layer, the colours run one
// after the other and each slab runs in sample order. Every entry thus receives its
// contributions in an order fixed by the data, not by the thread count.
#pragma once

#include "sims/fluid/grid3d.hpp"
#include "sims/fluid/pressure3d.hpp"

namespace simgrad::fluid {

// out = q traced back along the velocity over dt, at every sample of lattice `l` (q lives on `l`).
void advect(const Grid3& grid, const Lattice3& l, std::span<const double> q, const ConstVelocity3& velocity, double dt,
            std::span<double> out);

// Adds the adjoint of advect to dq and dvelocity, given d out.
void advect_adjoint(const Grid3& grid, const Lattice3& l, std::span<const double> q, const ConstVelocity3& velocity,
                    double dt, std::span<const double> dout, std::span<double> dq, const Velocity3& dvelocity);

}  // namespace simgrad::fluid
