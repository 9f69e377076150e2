// The tunables table of the smoke model, 2D and 3D: every quantity a scenario may tune,
// declared once (tune/tunable.hpp binds them).
#pragma once

#include "sims/fluid/smoke_model.hpp"
#include "tune/tunable.hpp"

namespace simgrad::fluid {

// The initial flow and smoke; each source's position, radius, rates and scheduled flow; the
// confinement strength; each boundary vent's patch, schedule and rates. In 3D also a source's z
// and tilt and a vent's second position and width.
template <class G>
const tune::TunableTable<SmokeModelOf<G>>& smoke_tunables();

}  // namespace simgrad::fluid
