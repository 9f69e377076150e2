// The tunables table of a vehicle: every constant a scenario may tune, declared once
// (tune/tunable.hpp binds them).
#pragma once

#include <string_view>
#include <vector>

#include "sims/vehicle/vehicle_model.hpp"
#include "tune/tunable.hpp"

namespace simgrad::vehicle {

// Every tunable constant, in Param order (row p sets slot p), then the tire constants of both
// axles at once (tire_B, ...: one value for front and rear, as for a car with the same tires
// all round). A constant's default is each preset's value.
const tune::TunableTable<VehicleModel>& vehicle_tunables();

// The packed-parameter slots constant `name` sets (two for a both-axles tire constant); empty
// for an unknown name.
std::vector<Param> parameter_slots(std::string_view name);

}  // namespace simgrad::vehicle
