#include "sims/softbody/tunables.hpp"

namespace simgrad::softbody {

template <int D>
const tune::TunableTable<MassSpringModel<D>>& mass_spring_tunables() {
  using Model = MassSpringModel<D>;
  using tune::TunableDefault;
  static const tune::TunableTable<Model> table = [] {
    tune::TunableTable<Model> t = {
        {{"stiffness", "N/m", "spring", "force per unit extension", TunableDefault::number(0.0)},
         [](Model& m) { return tune::array_storage(m.stiffness); }},
        {{"damping", "N s/m", "spring", "dashpot force per unit stretching speed", TunableDefault::number(0.0)},
         [](Model& m) { return tune::array_storage(m.damping); }},
        {{"rest_length", "m", "spring", "length at which the spring carries no force",
          TunableDefault::text("each spring's initial length")},
         [](Model& m) { return tune::array_storage(m.rest_length); }},
        {{"actuation", "1", "step and actuator", "relative change of the rest length of driven springs", TunableDefault::number(0.0)},
         [](Model& m) { return tune::array_storage(m.actuation); }},
    };
    append_node_tunables(t, "the body's nodes");
    return t;
  }();
  return table;
}

template const tune::TunableTable<MassSpringModel<2>>& mass_spring_tunables<2>();
template const tune::TunableTable<MassSpringModel<3>>& mass_spring_tunables<3>();

}  // namespace simgrad::softbody
