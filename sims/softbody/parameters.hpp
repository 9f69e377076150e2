// The tunable quantities of a mass-spring model and their binding to a tuning problem.
#pragma once

#include <string>
#include <vector>

#include "sims/softbody/mass_spring_model.hpp"
#include "tune/problem.hpp"

namespace simgrad::softbody {

// What `simgrad list` and scenario errors say about a tunable quantity.
struct ParameterInfo {
  std::string name;
  std::string unit;
  std::string per;  // what one entry belongs to: "spring", "node", "step and actuator", "model"
  std::string description;
};

// All tunable quantities of the mass-spring model.
const std::vector<ParameterInfo>& mass_spring_parameters();

// How the tuner's values map onto a per-entry array.
enum class Sharing {
  kEach,     // one tuned value per entry (per spring, per node component, ...)
  kUniform,  // one tuned value (or D-vector) for all entries; its gradient sums over entries
  kGroups,   // one tuned value (or D-vector) per group of entries, given by `groups`
};

struct ParameterRequest {
  std::string name;  // one of mass_spring_parameters()
  Sharing sharing = Sharing::kEach;
  double lower = -1e300;
  double upper = 1e300;
  tune::Transform transform = tune::Transform::identity;
  std::vector<int> groups;  // kGroups: the group of every entry, groups numbered from 0
};

// Binds a quantity of the model to the tuner; the initial value is what the model holds now
// (for uniform sharing, its first entry). Enables the quantity's adjoint. Throws
// std::invalid_argument for an unknown name.
template <int D>
tune::BoundParameter bind_parameter(MassSpringModel<D>& model, const ParameterRequest& request);

}  // namespace simgrad::softbody
