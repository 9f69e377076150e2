// What acts on the smoke between advection and projection: sources (emitters and vents),
// buoyancy, viscosity and the walls. Each has its forward operation and its adjoint; adjoints
// are gathers, and sums into a source's parameters run per block of samples, then in block order.
#pragma once

#include <span>

#include "core/row_slabs.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

// Applies source s at step t to the fields, in place. With `slabs` (the grid split in slabs of
// rows, core/row_slabs.hpp), this process's rows.
void apply_source(const SmokeModel& m, int s, int t, FieldsView f, const RowSlabs* slabs = nullptr);
// The adjoint of apply_source: `before` holds the velocities source s saw; the adjoint `a` is
// mapped in place and the source's parameter adjoints accumulate in the model. `scratch` holds
// the per-block partial sums (source_adjoint_scratch entries; allocated here when shorter).
// With `slabs`, this process maps its rows of `a` and sums the blocks of samples whose first
// sample is in its rows, reading the block's samples past the slab: `before` and `a` must hold
// source_block_rows rows above the slab. Every process adds every block's sums, in order.
void apply_source_adjoint(SmokeModel& m, int s, int t, const ConstVelocity<2>& before, FieldsView a,
                          std::span<double> scratch = {}, const RowSlabs* slabs = nullptr);
// The rows past a slab's last that a block of samples begun in the slab can reach.
int source_block_rows(const Grid& g);
// The scratch apply_source_adjoint needs on grid g.
std::size_t source_adjoint_scratch(const Grid& g);

// v += dt (buoyancy T - weight density), averaged onto the y-faces that are not walls. With
// `slabs` (the grid split in slabs of rows), this process's rows,
// after fetching the one row across its slab's edge that they read.
void apply_buoyancy(const SmokeModel& m, FieldsView f, const RowSlabs* slabs = nullptr);
void apply_buoyancy_adjoint(const SmokeModel& m, FieldsView a, const RowSlabs* slabs = nullptr);

// Explicit viscosity: each velocity component += dt nu Laplacian (5-point, on faces that are not
// walls); `scratch` holds one copy of a component. L is symmetric, so the adjoint is L applied
// to the adjoint with its walls masked. `slabs` as for buoyancy.
void apply_viscosity(const SmokeModel& m, const Velocity<2>& velocity, std::span<double> scratch,
                     const RowSlabs* slabs = nullptr);
void apply_viscosity_adjoint(const SmokeModel& m, const Velocity<2>& adjoint, std::span<double> scratch,
                             const RowSlabs* slabs = nullptr);

// Sets the velocity on walls to zero (its own adjoint).
void zero_walls(const Grid& g, const Velocity<2>& velocity);

}  // namespace simgrad::fluid
