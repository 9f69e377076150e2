#include "sims/softbody/parameters.hpp"

#include <algorithm>
#include <stdexcept>

namespace simgrad::softbody {

const std::vector<ParameterInfo>& mass_spring_parameters() {
  static const std::vector<ParameterInfo> info = {
      {"stiffness", "N/m", "spring", "force per unit extension"},
      {"damping", "N s/m", "spring", "dashpot force per unit stretching speed"},
      {"rest_length", "m", "spring", "length at which the spring carries no force"},
      {"actuation", "1", "step and actuator", "relative change of the rest length of driven springs"},
      {"gravity", "m/s^2", "model", "gravitational acceleration vector"},
      {"initial_position", "m", "node", "position at step 0"},
      {"initial_velocity", "m/s", "node", "velocity at step 0"},
  };
  return info;
}

namespace {

// Binds an array whose entries have `dim` components. Every sharing is a map from entries to
// tuned values (each: itself, uniform: 0, groups: its group); the gradient of a tuned value
// sums its entries' adjoints in entry order.
template <class A>
tune::BoundParameter bind_array(A& array, int dim, const ParameterRequest& request, const std::string& unit) {
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

}  // namespace

template <int D>
tune::BoundParameter bind_parameter(MassSpringModel<D>& model, const ParameterRequest& request) {
  const auto& info = mass_spring_parameters();
  auto unit = [&](const std::string& name) {
    for (const ParameterInfo& p : info)
      if (p.name == name) return p.unit;
    return std::string();
  };
  const std::string& n = request.name;
  if (n == "stiffness") return bind_array(model.stiffness, 1, request, unit(n));
  if (n == "damping") return bind_array(model.damping, 1, request, unit(n));
  if (n == "rest_length") return bind_array(model.rest_length, 1, request, unit(n));
  if (n == "actuation") return bind_array(model.actuation, 1, request, unit(n));
  if (n == "gravity") return bind_array(model.gravity, D, request, unit(n));
  if (n == "initial_position") return bind_array(model.initial_position, D, request, unit(n));
  if (n == "initial_velocity") return bind_array(model.initial_velocity, D, request, unit(n));
  throw std::invalid_argument("unknown mass-spring parameter \"" + n + "\"");
}

template tune::BoundParameter bind_parameter<2>(MassSpringModel<2>&, const ParameterRequest&);
template tune::BoundParameter bind_parameter<3>(MassSpringModel<3>&, const ParameterRequest&);

}  // namespace simgrad::softbody
