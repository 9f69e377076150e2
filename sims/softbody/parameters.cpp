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
