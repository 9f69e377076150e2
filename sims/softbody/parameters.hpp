// The tunable quantities of a mass-spring model and their binding to a tuning problem.
#pragma once

#include <algorithm>
#include <stdexcept>
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

// Binds an array whose entries have `dim` components. Every sharing is a map from entries to
// tuned values (each: itself, uniform: 0, groups: its group); the gradient of a tuned value
// sums its entries' adjoints in entry order.
template <class A>
inline tune::BoundParameter bind_array(A& array, int dim, const ParameterRequest& request, const std::string& unit) {
  array.set_differentiable(true);
  const std::size_t entries = array.values().size() / static_cast<std::size_t>(dim);
  if (entries == 0) throw std::invalid_argument("parameter \"" + request.name + "\" has no entries in this model");
  std::vector<std::size_t> owner(entries);
  std::size_t tuned = 0;
  for (std::size_t i = 0; i < entries; ++i) {
    switch (request.sharing) {
      case Sharing::kEach: owner[i] = i; break;
      case Sharing::kUniform: owner[i] = 0; break;
      case Sharing::kGroups:
        if (request.groups.size() != entries || request.groups[i] < 0)
          throw std::invalid_argument("parameter \"" + request.name + "\": expected " + std::to_string(entries) +
                                      " group numbers >= 0, one per entry");
        owner[i] = static_cast<std::size_t>(request.groups[i]);
        break;
    }
    tuned = std::max(tuned, owner[i] + 1);
  }
  tune::BoundParameter b;
  b.parameter.name = request.name;
  b.parameter.unit = unit;
  b.parameter.lower = request.lower;
  b.parameter.upper = request.upper;
  b.parameter.transform = request.transform;
  // The initial value of a tuned value is that of its first entry.
  const auto values = array.values();
  b.parameter.initial.assign(tuned * static_cast<std::size_t>(dim), 0.0);
  std::vector<bool> seen(tuned, false);
  for (std::size_t i = 0; i < entries; ++i)
    if (!seen[owner[i]]) {
      seen[owner[i]] = true;
      for (int c = 0; c < dim; ++c) b.parameter.initial[owner[i] * dim + c] = values[i * dim + c];
    }
  b.assign = [&array, dim, owner](std::span<const double> x) {
    auto v = array.values();
    for (std::size_t i = 0; i < owner.size(); ++i)
      for (int c = 0; c < dim; ++c) v[i * dim + c] = x[owner[i] * dim + c];
  };
  b.gradient = [&array, dim, owner](std::span<double> g) {
    const auto a = array.adjoints();
    std::fill(g.begin(), g.end(), 0.0);
    for (std::size_t i = 0; i < owner.size(); ++i)
      for (int c = 0; c < dim; ++c) g[owner[i] * dim + c] += a[i * dim + c];
  };
  return b;
}

// Binds a quantity of the model to the tuner; the initial value is what the model holds now
// (for uniform sharing, its first entry). Enables the quantity's adjoint. Throws
// std::invalid_argument for an unknown name.
template <int D>
tune::BoundParameter bind_parameter(MassSpringModel<D>& model, const ParameterRequest& request);

}  // namespace simgrad::softbody
