// What acts on 3D smoke between advection and projection, as in 2D (forcing.hpp): sources with
// Gaussian footprints, buoyancy along +y, explicit viscosity and the walls. Forward passes and
// the adjoints into the fields run in parallel as gathers; sums into a source's parameters run in
// sample order.
#pragma once

#include <span>

#include "sims/fluid/fields.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

// Applies source s at step t to the fields, in place.
void apply_source(const SmokeModel3& m, int s, int t, const Fields3View& f);
// The adjoint of apply_source: `before` holds the velocity source s saw; the adjoint `a` is
// mapped in place and the source's parameter adjoints accumulate in the model.
void apply_source_adjoint(SmokeModel3& m, int s, int t, const ConstVelocity3& before, const Fields3View& a);

// The y-velocity += dt (buoyancy T - weight density), averaged onto the y-faces that are not walls.
void apply_buoyancy(const SmokeModel3& m, const Fields3View& f);
void apply_buoyancy_adjoint(const SmokeModel3& m, const Fields3View& a);

// Each velocity component += dt nu Laplacian (7-point, on faces that are not walls); `scratch`
// holds one component. The adjoint is the symmetric Laplacian applied with the walls masked.
void apply_viscosity(const SmokeModel3& m, const Velocity3& velocity, std::span<double> scratch);
void apply_viscosity_adjoint(const SmokeModel3& m, const Velocity3& adjoint, std::span<double> scratch);

// Sets the velocity on walls to zero (its own adjoint).
void zero_walls(const Grid3& g, const Velocity3& velocity);

}  // namespace simgrad::fluid
