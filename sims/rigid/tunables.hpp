// The tunables table of a rigid model: every quantity a scenario may tune, declared once
// (tune/tunable.hpp binds them). Entries are numbered as in the MJCF file (bodies, dofs, joints,
// actuators and geoms in document order; body 0 is the world).
#pragma once

#include "sims/rigid/model.hpp"
#include "tune/tunable.hpp"

namespace simgrad::rigid {

const tune::TunableTable<RigidModel>& rigid_tunables();

}  // namespace simgrad::rigid
