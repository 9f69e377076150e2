#include "sims/fluid/parameters.hpp"

#include <algorithm>
#include <stdexcept>

namespace simgrad::fluid {

const std::vector<ParameterInfo>& smoke_parameters() {
  static const std::vector<ParameterInfo> info = {
      {"initial_velocity", "m/s", "face", "velocity at the start, one value per x-face then per y-face"},
      {"initial_density", "1", "cell", "smoke density at the start"},
      {"source_x", "m", "source", "x of a source's centre (smooth footprint: need not sit on a cell)"},
      {"source_y", "m", "source", "y of a source's centre"},
      {"source_radius", "m", "source", "radius of a source's Gaussian footprint"},
      {"density_rate", "1/s", "source", "smoke density an emitter adds per second at its centre"},
      {"temperature_rate", "K/s", "source", "temperature an emitter adds per second at its centre"},
      {"speed", "m/s", "source and knot", "speed of the flow a source (emitter or interior vent) drives, per schedule knot"},
      {"angle", "rad", "source and knot", "direction of that flow (0: +x, pi/2: +y), per schedule knot"},
      {"vorticity_confinement", "1", "model", "vorticity confinement strength epsilon (on when the scenario sets it)"},
      {"vent_position", "m", "vent", "centre of a boundary vent along its side (smooth footprint: need not sit on a face)"},
      {"vent_width", "m", "vent", "width of a boundary vent along its side (soft edges one cell wide)"},
      {"vent_speed", "m/s", "vent and knot", "speed a boundary vent blows into the domain (negative: draws out), per schedule knot"},
      {"vent_density_rate", "1/s", "vent", "smoke density a boundary vent's inflow adds per second at the wall"},
      {"vent_temperature_rate", "K/s", "vent", "temperature a boundary vent's inflow adds per second at the wall"}};
  return info;
}

const std::vector<ParameterInfo>& smoke3d_parameters() {
  static const std::vector<ParameterInfo> info = [] {
    std::vector<ParameterInfo> p = smoke_parameters();
    p[0].description = "velocity at the start, one value per x-face, then per y-face (then per z-face in 3D)";
    p.insert(p.begin() + 4, {"source_z", "m", "source", "z of a source's centre"});
    p.push_back({"tilt", "rad", "source and knot", "lean of that flow out of the x-y plane towards +z, per schedule knot"});
    for (ParameterInfo& i : p)
      if (i.name == "vent_position") i.description = "centre of a boundary vent's patch along its side's first tangent axis (x, or y on a left or right side)";
    p.push_back({"vent_position2", "m", "vent", "centre of a boundary vent's patch along its side's second tangent axis (z, or y on a front or back side)"});
    p.push_back({"vent_width2", "m", "vent", "width of a boundary vent's patch along its side's second tangent axis"});
    return p;
  }();
  return info;
}

namespace {

template <class Model>
tune::BoundParameter bind(Model& model, const ParameterRequest& request, const std::vector<ParameterInfo>& known) {
  const std::string& n = request.name;
  if (std::none_of(known.begin(), known.end(), [&](const ParameterInfo& p) { return p.name == n; }))
    throw std::invalid_argument("unknown fluid parameter \"" + n + "\"");
  Quantity* q = nullptr;
  int per_source = 0;  // entries per source (or vent); 0: not a per-source quantity
  bool per_vent = false;
  if (n == "initial_velocity") q = &model.initial_velocity;
  else if (n == "initial_density") q = &model.initial_density;
  else if (n == "source_x") q = &model.source_x, per_source = 1;
  else if (n == "source_y") q = &model.source_y, per_source = 1;
  else if (n == "source_z") q = &model.source_z, per_source = 1;
  else if (n == "source_radius") q = &model.source_radius, per_source = 1;
  else if (n == "density_rate") q = &model.density_rate, per_source = 1;
  else if (n == "temperature_rate") q = &model.temperature_rate, per_source = 1;
  else if (n == "speed") q = &model.speed, per_source = model.knots;
  else if (n == "angle") q = &model.angle, per_source = model.knots;
  else if (n == "tilt") q = &model.tilt, per_source = model.knots;
  else if (n == "vent_position") q = &model.vent_position, per_source = 1, per_vent = true;
  else if (n == "vent_position2") q = &model.vent_position2, per_source = 1, per_vent = true;
  else if (n == "vent_width") q = &model.vent_width, per_source = 1, per_vent = true;
  else if (n == "vent_width2") q = &model.vent_width2, per_source = 1, per_vent = true;
  else if (n == "vent_speed") q = &model.vent_speed, per_source = model.knots, per_vent = true;
  else if (n == "vent_density_rate") q = &model.vent_density_rate, per_source = 1, per_vent = true;
  else if (n == "vent_temperature_rate") q = &model.vent_temperature_rate, per_source = 1, per_vent = true;
  else if (n == "vorticity_confinement") {
    if (!model.settings.confinement)
      throw std::invalid_argument("set \"vorticity_confinement\" in the scenario to tune it (confinement is off)");
    q = &model.confinement;
  } else throw std::invalid_argument("unknown fluid parameter \"" + n + "\"");
  // The entries of the quantity this parameter moves.
  std::vector<std::size_t> entries;
  if (!per_vent && !request.vents.empty()) throw std::invalid_argument("\"" + n + "\" is not a per-vent quantity");
  if (per_vent && !request.sources.empty())
    throw std::invalid_argument("\"" + n + "\" belongs to boundary vents: select them by \"vents\"");
  if (per_source == 0) {
    if (!request.sources.empty()) throw std::invalid_argument("\"" + n + "\" is not a per-source quantity");
    for (std::size_t i = 0; i < q->size(); ++i) entries.push_back(i);
  } else {
    const int count = per_vent ? model.vent_count() : model.source_count();
    const char* what = per_vent ? "vent " : "source ";
    std::vector<int> sources = per_vent ? request.vents : request.sources;
    if (sources.empty())
      for (int s = 0; s < count; ++s) sources.push_back(s);
    for (int s : sources) {
      if (s < 0 || s >= count)
        throw std::invalid_argument(what + std::to_string(s) + " does not exist (the model has " + std::to_string(count) + ")");
      for (int k = 0; k < per_source; ++k) entries.push_back(static_cast<std::size_t>(s * per_source + k));
    }
  }
  if (entries.empty()) throw std::invalid_argument("parameter \"" + n + "\" has no entries in this model");
  std::string unit;
  for (const ParameterInfo& p : known)
    if (p.name == n) unit = p.unit;
  tune::BoundParameter b;
  b.parameter.name = n;
  b.parameter.unit = unit;
  b.parameter.lower = request.lower;
  b.parameter.upper = request.upper;
  b.parameter.transform = request.transform;
  const bool uniform = request.uniform;
  if (uniform) b.parameter.initial = {q->value[entries[0]]};
  else
    for (std::size_t e : entries) b.parameter.initial.push_back(q->value[e]);
  b.assign = [q, entries, uniform](std::span<const double> x) {
    for (std::size_t k = 0; k < entries.size(); ++k) q->value[entries[k]] = x[uniform ? 0 : k];
  };
  b.gradient = [q, entries, uniform](std::span<double> g) {
    std::fill(g.begin(), g.end(), 0.0);
    for (std::size_t k = 0; k < entries.size(); ++k) g[uniform ? 0 : k] += q->adjoint[entries[k]];
  };
  return b;
}

}  // namespace

tune::BoundParameter bind_parameter(SmokeModel& model, const ParameterRequest& request) {
  return bind(model, request, smoke_parameters());
}

tune::BoundParameter bind_parameter(SmokeModel3& model, const ParameterRequest& request) {
  return bind(model, request, smoke3d_parameters());
}

}  // namespace simgrad::fluid
