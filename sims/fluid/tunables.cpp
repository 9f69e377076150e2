#include "sims/fluid/tunables.hpp"

#include <stdexcept>
#include <type_traits>

namespace simgrad::fluid {

namespace {

// A tunable array with one entry per item (or `knots` per item: a schedule).
tune::TunableStorage storage(Array<1>& q, int entries_per_item = 1) { return tune::array_storage(q, 1, entries_per_item); }

}  // namespace

template <class G>
const tune::TunableTable<SmokeModelOf<G>>& smoke_tunables() {
  using Model = SmokeModelOf<G>;
  using tune::TunableDefault;
  constexpr bool three_d = std::is_same_v<G, Grid3>;
  auto number = TunableDefault::number;
  auto text = TunableDefault::text;
  // Per source (`per` says so; picked by "sources"), per vent (picked by "vents").
  auto per_source = [](tune::TunableInfo info) {
    info.item = "source";
    return info;
  };
  auto per_vent = [](tune::TunableInfo info) {
    info.item = "vent";
    return info;
  };
  static const tune::TunableTable<Model> table = [&] {
    tune::TunableTable<Model> t = {
        {{"initial_velocity", "m/s", "face",
          three_d ? "velocity at the start, one value per x-face, then per y-face (then per z-face in 3D)"
                  : "velocity at the start, one value per x-face then per y-face",
          number(0.0)},
         [](Model& m) { return storage(m.initial_velocity); }},
        {{"initial_density", "1", "cell", "smoke density at the start", number(0.0)},
         [](Model& m) { return storage(m.initial_density); }},
        {per_source({"source_x", "m", "source", "x of a source's centre (smooth footprint: need not sit on a cell)",
                     text("required: sources[].position")}),
         [](Model& m) { return storage(m.source_x); }},
        {per_source({"source_y", "m", "source", "y of a source's centre", text("required: sources[].position")}),
         [](Model& m) { return storage(m.source_y); }},
        {per_source({"source_radius", "m", "source", "radius of a source's Gaussian footprint", text("required: sources[].radius")}),
         [](Model& m) { return storage(m.source_radius); }},
        {per_source({"density_rate", "1/s", "source", "smoke density an emitter adds per second at its centre", number(0.0)}),
         [](Model& m) { return storage(m.density_rate); }},
        {per_source({"temperature_rate", "K/s", "source", "temperature an emitter adds per second at its centre", number(0.0)}),
         [](Model& m) { return storage(m.temperature_rate); }},
        {per_source({"speed", "m/s", "source and knot",
                     "speed of the flow a source (emitter or interior vent) drives, per schedule knot", number(0.0)}),
         [](Model& m) { return storage(m.speed, m.knots); }},
        {per_source({"angle", "rad", "source and knot", "direction of that flow (0: +x, pi/2: +y), per schedule knot", number(0.0)}),
         [](Model& m) { return storage(m.angle, m.knots); }},
        {{"vorticity_confinement", "1", "model", "vorticity confinement strength epsilon (on when the scenario sets it)",
          number(0.0)},
         [](Model& m) {
           if (!m.settings.confinement)
             throw std::invalid_argument("set \"vorticity_confinement\" in the scenario to tune it (confinement is off)");
           return storage(m.confinement);
         }},
        {per_vent({"vent_position", "m", "vent",
                   three_d ? "centre of a boundary vent's patch along its side's first tangent axis (x, or y on a left or right side)"
                           : "centre of a boundary vent along its side (smooth footprint: need not sit on a face)",
                   text("required: vents[].position")}),
         [](Model& m) { return storage(m.vent_position); }},
        {per_vent({"vent_width", "m", "vent", "width of a boundary vent along its side (soft edges one cell wide)",
                   text("required: vents[].width")}),
         [](Model& m) { return storage(m.vent_width); }},
        {per_vent({"vent_speed", "m/s", "vent and knot",
                   "speed a boundary vent blows into the domain (negative: draws out), per schedule knot", number(0.0)}),
         [](Model& m) { return storage(m.vent_speed, m.knots); }},
        {per_vent({"vent_density_rate", "1/s", "vent", "smoke density a boundary vent's inflow adds per second at the wall",
                   number(0.0)}),
         [](Model& m) { return storage(m.vent_density_rate); }},
        {per_vent({"vent_temperature_rate", "K/s", "vent", "temperature a boundary vent's inflow adds per second at the wall",
                   number(0.0)}),
         [](Model& m) { return storage(m.vent_temperature_rate); }},
    };
    if constexpr (three_d) {
      t.insert(t.begin() + 4, {per_source({"source_z", "m", "source", "z of a source's centre", text("required in 3D: sources[].position")}),
                               [](Model& m) { return storage(m.source_z); }});
      t.push_back({per_source({"tilt", "rad", "source and knot",
                               "lean of that flow out of the x-y plane towards +z, per schedule knot", number(0.0)}),
                   [](Model& m) { return storage(m.tilt, m.knots); }});
      t.push_back({per_vent({"vent_position2", "m", "vent",
                             "centre of a boundary vent's patch along its side's second tangent axis (z, or y on a front or back side)",
                             text("required in 3D: vents[].position")}),
                   [](Model& m) { return storage(m.vent_position2); }});
      t.push_back({per_vent({"vent_width2", "m", "vent", "width of a boundary vent's patch along its side's second tangent axis",
                             text("required in 3D: vents[].width")}),
                   [](Model& m) { return storage(m.vent_width2); }});
    }
    return t;
  }();
  return table;
}

template const tune::TunableTable<SmokeModel>& smoke_tunables<Grid>();
template const tune::TunableTable<SmokeModel3>& smoke_tunables<Grid3>();

}  // namespace simgrad::fluid
