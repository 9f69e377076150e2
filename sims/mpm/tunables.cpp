#include "sims/mpm/tunables.hpp"

namespace simgrad::mpm {

namespace {

// Where each body's particles start, and the particle count at the end.
template <int D>
std::vector<std::size_t> body_starts(const MpmModel<D>& m) {
  std::vector<std::size_t> starts;
  for (std::size_t p = 0; p < m.body.size(); ++p)
    if (p == 0 || m.body[p] != m.body[p - 1]) starts.push_back(p);
  starts.push_back(m.body.size());
  return starts;
}

}  // namespace

template <int D>
const tune::TunableTable<MpmModel<D>>& mpm_tunables() {
  using Model = MpmModel<D>;
  using tune::TunableDefault;
  // A per-particle row: its items are the bodies (each its run of particles), so a scenario
  // tunes a region by picking bodies.
  auto row = [](tune::TunableInfo info, auto member) {
    info.item = "body";
    return tune::Tunable<Model>{std::move(info), [member](Model& m) {
                                  tune::TunableStorage s = tune::array_storage(m.*member);
                                  s.item_starts = body_starts(m);
                                  return s;
                                }};
  };
  static const tune::TunableTable<Model> table = {
      row({"youngs_modulus", "Pa", "particle", "Young's modulus E of the particle's material (not a liquid)", TunableDefault::number(1e4)},
          &Model::youngs),
      row({"poisson_ratio", "1", "particle", "Poisson ratio nu of the particle's material (below 0.5)", TunableDefault::number(0.3)},
          &Model::poisson),
      row({"density", "kg/m^3", "particle", "mass per unit volume; a particle's mass is its density times its volume",
           TunableDefault::number(1e3)},
          &Model::density),
      row({"friction_angle", "deg", "particle", "Drucker-Prager friction angle of sand", TunableDefault::number(30.0)},
          &Model::friction_angle),
      row({"hardening", "1", "particle", "snow's hardening coefficient xi: moduli times exp(xi (1 - J_p))", TunableDefault::number(10.0)},
          &Model::hardening),
      row({"bulk_modulus", "Pa", "particle", "a weakly compressible liquid's bulk modulus K", TunableDefault::number(1e4)},
          &Model::bulk_modulus),
      row({"initial_position", "m", "particle", "position at step 0", TunableDefault::text("the scenario's bodies")},
          &Model::initial_position),
      row({"initial_velocity", "m/s", "particle", "velocity at step 0", TunableDefault::text("the scenario's bodies' velocities")},
          &Model::initial_velocity),
      {{"controls", "1", "step and actuator", "open-loop actuation signals, one per step (a step past the last keeps the last)",
        TunableDefault::number(0.0)},
       [](Model& m) { return tune::array_storage(m.controls); }},
  };
  return table;
}

template const tune::TunableTable<MpmModel<2>>& mpm_tunables<2>();
template const tune::TunableTable<MpmModel<3>>& mpm_tunables<3>();

}  // namespace simgrad::mpm
