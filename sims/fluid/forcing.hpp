// What acts on the smoke between advection and projection: sources (emitters and vents),
// buoyancy, viscosity and the walls. Each has its forward operation and its adjoint; adjoints
// are gathers, and sums into a source's parameters run per block of samples, then in block order.
#pragma once

#include <span>

#include "core/row_slabs.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

// Applies source s at step t to the fields, in place.
void apply_source(const SmokeModel& m, int s, int t, FieldsView f);
// The adjoint of apply_source: `before` holds the velocities source s saw; the adjoint `a` is
// mapped in place and the source's parameter adjoints accumulate in the model. `scratch` holds
// the per-block partial sums (source_adjoint_scratch entries; allocated here when shorter).
void apply_source_adjoint(SmokeModel& m, int s, int t, const ConstVelocity<2>& before, FieldsView a,
                          std::span<double> scratch = {});
// The scratch apply_source_adjoint needs on grid g.
std::size_t source_adjoint_scratch(const Grid& g);

// v += dt (buoyancy T - weight density), averaged onto the y-faces that are not walls. With
// `slabs` (a periodic grid split in slabs of rows, core/row_slabs.hpp), this process's rows,
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
