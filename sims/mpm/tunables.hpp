// The tunables table of an MPM model: every quantity a scenario may tune, declared once
// (tune/tunable.hpp binds them). Material constants and the initial state are per particle,
// so one value is global (sharing "uniform"), one per region (sharing "groups", or a body's
// particles picked by the scenario), or one per particle; the controls are per step and actuator.
#pragma once

#include "sims/mpm/model.hpp"
#include "tune/tunable.hpp"

namespace simgrad::mpm {

template <int D>
const tune::TunableTable<MpmModel<D>>& mpm_tunables();

}  // namespace simgrad::mpm
