// The tunable constants of a vehicle and their binding to a tuning problem.
#pragma once

#include <string>
#include <vector>

#include "sims/vehicle/vehicle_model.hpp"
#include "tune/problem.hpp"

namespace simgrad::vehicle {

struct ParameterInfo {
  std::string name;
  std::string unit;
  std::string description;
};

// Every tunable constant, in Param order (the spare slot left out), then the tire constants of
// both axles at once (tire_B, ...: one value for front and rear, as for a car with the same
// tires all round).
const std::vector<ParameterInfo>& vehicle_parameters();

// The packed-parameter slots a tunable name sets (two for a both-axles tire constant); empty
// for an unknown name.
std::vector<Param> parameter_slots(const std::string& name);

// Binds constant `name` (one of vehicle_parameters()) to the tuner, starting from the model's
// value; throws std::invalid_argument for an unknown name.
tune::BoundParameter bind_parameter(VehicleModel& model, const std::string& name, double lower, double upper,
                                    tune::Transform transform);

}  // namespace simgrad::vehicle
