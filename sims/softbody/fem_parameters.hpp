// The tunable quantities of an FEM model and their binding to a tuning problem (the sharing
// options and the binding itself are those of the mass-spring model, parameters.hpp).
#pragma once

#include <vector>

#include "sims/softbody/fem_model.hpp"
#include "sims/softbody/parameters.hpp"

namespace simgrad::softbody {

// All tunable quantities of the FEM model.
const std::vector<ParameterInfo>& fem_parameters();

// Binds a quantity of the model to the tuner; the initial value is what the model holds now.
// Enables the quantity's adjoint. Throws std::invalid_argument for an unknown name.
template <int D>
tune::BoundParameter bind_fem_parameter(FemModel<D>& model, const ParameterRequest& request);

}  // namespace simgrad::softbody
