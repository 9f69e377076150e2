// The tunable quantities of the epidemic and their binding to a tuning problem.
#pragma once

#include <string>
#include <vector>

#include "sims/contagion/disease_model.hpp"
#include "tune/problem.hpp"

namespace simgrad::contagion {

// What `simgrad list` and scenario errors say about a tunable quantity.
struct ParameterInfo {
  std::string name;
  std::string unit;
  std::string per;
  std::string description;
};

// All tunable quantities of the epidemic.
const std::vector<ParameterInfo>& epidemic_parameters();

struct ParameterRequest {
  std::string name;       // one of epidemic_parameters()
  bool uniform = false;   // one tuned value for every entry
  int entries = 0;        // > 0: only the first `entries` are tuned, later ones follow the last
                          // tuned value (R of weeks after a forecast date follows the last fitted week)
  double lower = -1e300;
  double upper = 1e300;
  tune::Transform transform = tune::Transform::identity;
};

// The quantity of the model with this name; throws std::invalid_argument for an unknown one.
Quantity& quantity(DiseaseParameters& parameters, const std::string& name);

// Binds a quantity to the tuner; the initial value is what it holds now. The agent model and
// the SEIRM model bind their parameters alike.
tune::BoundParameter bind_parameter(DiseaseParameters& parameters, const ParameterRequest& request);

}  // namespace simgrad::contagion
