// The tunables table of the FEM model: every quantity a scenario may tune, declared once
// (tune/tunable.hpp binds them).
#pragma once

#include "sims/fem/model.hpp"
#include "tune/tunable.hpp"

namespace simgrad::fem {

// The material per region (Young's modulus, Poisson ratio, Rayleigh damping), the mass damping,
// gravity, and the initial positions and velocities per node.
template <int D>
const tune::TunableTable<FemModel<D>>& fem_tunables();

}  // namespace simgrad::fem
