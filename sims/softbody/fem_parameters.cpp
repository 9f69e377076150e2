#include "sims/softbody/fem_parameters.hpp"

#include <stdexcept>

namespace simgrad::softbody {

const std::vector<ParameterInfo>& fem_parameters() {
  static const std::vector<ParameterInfo> info = {
      {"youngs_modulus", "Pa", "region", "Young's modulus E of the material"},
      {"poisson_ratio", "1", "region", "Poisson ratio nu of the material (below 0.5)"},
      {"damping", "s", "region", "stiffness-proportional Rayleigh damping beta (viscous stress beta times the elastic one of the strain rate)"},
      {"mass_damping", "1/s", "model", "mass-proportional Rayleigh damping alpha (velocities decay as exp(-alpha t))"},
      {"gravity", "m/s^2", "model", "gravitational acceleration vector"},
      {"initial_position", "m", "node", "position at step 0"},
      {"initial_velocity", "m/s", "node", "velocity at step 0"},
  };
  return info;
}

template <int D>
tune::BoundParameter bind_fem_parameter(FemModel<D>& model, const ParameterRequest& request) {
  const std::string& n = request.name;
  std::string unit;
  for (const ParameterInfo& p : fem_parameters())
    if (p.name == n) unit = p.unit;
  if (n == "youngs_modulus") return bind_array(model.youngs, 1, request, unit);
  if (n == "poisson_ratio") return bind_array(model.poisson, 1, request, unit);
  if (n == "damping") return bind_array(model.damping, 1, request, unit);
  if (n == "mass_damping") return bind_array(model.mass_damping, 1, request, unit);
  if (n == "gravity") return bind_array(model.gravity, D, request, unit);
  if (n == "initial_position") return bind_array(model.initial_position, D, request, unit);
  if (n == "initial_velocity") return bind_array(model.initial_velocity, D, request, unit);
  throw std::invalid_argument("unknown FEM parameter \"" + n + "\"");
}

template tune::BoundParameter bind_fem_parameter<2>(FemModel<2>&, const ParameterRequest&);
template tune::BoundParameter bind_fem_parameter<3>(FemModel<3>&, const ParameterRequest&);

}  // namespace simgrad::softbody
