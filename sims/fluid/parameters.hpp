// The tunable quantities of a smoke model and their binding to a tuning problem.
#pragma once

#include <string>
#include <vector>

#include "sims/fluid/smoke_model.hpp"
#include "tune/problem.hpp"

namespace simgrad::fluid {

// What `simgrad list` and scenario errors say about a tunable quantity.
struct ParameterInfo {
  std::string name;
  std::string unit;
  std::string per;
  std::string description;
};

// All tunable quantities of the 2D smoke model, and of the 3D one (a source's z and tilt, a
// boundary vent's second position and width more).
const std::vector<ParameterInfo>& smoke_parameters();
const std::vector<ParameterInfo>& smoke3d_parameters();

struct ParameterRequest {
  std::string name;          // one of smoke_parameters()
  std::vector<int> sources;  // for per-source quantities: which sources (empty: all)
  std::vector<int> vents;    // for per-vent (vent_*) quantities: which boundary vents (empty: all)
  bool uniform = false;      // one tuned value for every selected entry (its gradient sums)
  double lower = -1e300;
  double upper = 1e300;
  tune::Transform transform = tune::Transform::identity;
};

// Binds a quantity to the tuner; the initial values are the model's. Throws
// std::invalid_argument for an unknown name or source.
tune::BoundParameter bind_parameter(SmokeModel& model, const ParameterRequest& request);
tune::BoundParameter bind_parameter(SmokeModel3& model, const ParameterRequest& request);

}  // namespace simgrad::fluid
