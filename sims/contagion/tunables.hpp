// The tunables table of the epidemic: every quantity a scenario may tune, declared once
// (tune/tunable.hpp binds them). The agent model and the SEIRM model share it.
#pragma once

#include "sims/contagion/disease_model.hpp"
#include "tune/tunable.hpp"

namespace simgrad::contagion {

// R per week, mortality, the initial share infected, susceptibility per age group,
// infectiousness per stage, the shedding profile, contact reductions, vaccination, reporting
// and ascertainment.
const tune::TunableTable<DiseaseParameters>& epidemic_tunables();

// The quantity of `parameters` named `name`; throws std::invalid_argument for an unknown one.
Array<1>& quantity(DiseaseParameters& parameters, std::string_view name);

}  // namespace simgrad::contagion
