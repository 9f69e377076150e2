// The tunables table of an MPM model: every quantity a scenario may tune, declared once
// (tune/tunable.hpp binds them). Material constants and the initial state are per particle,
// and come in items, the bodies the particles were made from (model.hpp): one value is global
// (sharing "uniform"), one per region (the bodies picked, uniform; or sharing "groups"), or one
// per particle; the controls are per step and actuator.
#pragma once

#include "sims/mpm/model.hpp"
#include "tune/tunable.hpp"

namespace simgrad::mpm {

template <int D>
const tune::TunableTable<MpmModel<D>>& mpm_tunables();

}  // namespace simgrad::mpm
