#include "sims/fem/tunables.hpp"

#include "sims/softbody/tunables.hpp"

namespace simgrad::fem {

using softbody::append_node_tunables;

template <int D>
const tune::TunableTable<FemModel<D>>& fem_tunables() {
  using Model = FemModel<D>;
  using tune::TunableDefault;
  static const tune::TunableTable<Model> table = [] {
    tune::TunableTable<Model> t = {
        {{"youngs_modulus", "Pa", "region", "Young's modulus E of the material", TunableDefault::number(1e5)},
         [](Model& m) { return tune::array_storage(m.youngs); }},
        {{"poisson_ratio", "1", "region", "Poisson ratio nu of the material (below 0.5)", TunableDefault::number(0.3)},
         [](Model& m) { return tune::array_storage(m.poisson); }},
        {{"damping", "s", "region",
          "stiffness-proportional Rayleigh damping beta (viscous stress beta times the elastic one of the strain rate)",
          TunableDefault::number(0.0)},
         [](Model& m) { return tune::array_storage(m.damping); }},
        {{"mass_damping", "1/s", "model", "mass-proportional Rayleigh damping alpha (velocities decay as exp(-alpha t))",
          TunableDefault::number(0.0)},
         [](Model& m) { return tune::array_storage(m.mass_damping); }},
    };
    append_node_tunables(t, "the mesh's nodes");
    return t;
  }();
  return table;
}

template const tune::TunableTable<FemModel<2>>& fem_tunables<2>();
template const tune::TunableTable<FemModel<3>>& fem_tunables<3>();

}  // namespace simgrad::fem
