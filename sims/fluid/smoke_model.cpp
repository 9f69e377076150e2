#include "sims/fluid/smoke_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

namespace simgrad::fluid {

template <class G>
void SmokeModelOf<G>::reset(G g, SmokeSettings s) {
  grid = std::move(g);
  settings = s;
  initial_velocity.resize(grid.face_count(), true);
  initial_density.resize(grid.cells(), true);
  initial_temperature.resize(grid.cells(), true);
  confinement.resize(1, true);
  source_names.clear();
  knots = 1;
  for (Array<1>* q : {&source_x, &source_y, &source_z, &source_radius, &density_rate, &temperature_rate, &speed, &angle, &tilt})
    q->resize(0, true);
  vent_names.clear();
  vent_sides.clear();
  for (Array<1>* q : {&vent_position, &vent_position2, &vent_width, &vent_width2, &vent_speed, &vent_density_rate,
                      &vent_temperature_rate})
    q->resize(0, true);
}

namespace {

// Appends `count` copies of v to a tunable array, differentiable as reset made it.
void push(Array<1>& q, double v, int count) { q.append(count, v, true); }

}  // namespace

template <class G>
void SmokeModelOf<G>::add_source(const std::string& name, double x, double y, double radius, double density,
                                 double temperature, double source_speed, double source_angle) {
  add_source(name, {x, y, 0.0}, radius, density, temperature, source_speed, source_angle, 0.0);
}

template <class G>
void SmokeModelOf<G>::add_source(const std::string& name, const std::array<double, 3>& at, double radius,
                                 double density, double temperature, double source_speed, double source_angle,
                                 double source_tilt) {
  if (!(radius > 0.0)) throw std::invalid_argument("source \"" + name + "\" needs a radius > 0");
  source_names.push_back(name);
  push(source_x, at[0], 1);
  push(source_y, at[1], 1);
  push(source_z, at[2], 1);
  push(source_radius, radius, 1);
  push(density_rate, density, 1);
  push(temperature_rate, temperature, 1);
  push(speed, source_speed, knots);
  push(angle, source_angle, knots);
  push(tilt, source_tilt, knots);
}

template <class G>
void SmokeModelOf<G>::add_boundary_vent(const std::string& name, int side, const std::array<double, 2>& at,
                                        const std::array<double, 2>& width, double inflow_speed, double density,
                                        double temperature) {
  constexpr int kSides = std::is_same_v<G, Grid3> ? 6 : 4;
  if (side < 0 || side >= kSides) throw std::invalid_argument("vent \"" + name + "\" names no side of the domain");
  if (grid.side(side) == Side::kPeriodic)
    throw std::invalid_argument("vent \"" + name + "\" needs a closed or open side: a periodic one has no boundary");
  if (!(width[0] > 0.0) || (kSides == 6 && !(width[1] > 0.0)))
    throw std::invalid_argument("vent \"" + name + "\" needs a width > 0");
  vent_names.push_back(name);
  vent_sides.push_back(side);
  push(vent_position, at[0], 1);
  push(vent_position2, at[1], 1);
  push(vent_width, width[0], 1);
  push(vent_width2, width[1], 1);
  push(vent_speed, inflow_speed, knots);
  push(vent_density_rate, density, 1);
  push(vent_temperature_rate, temperature, 1);
}

template <class G>
void SmokeModelOf<G>::set_knots(int k) {
  if (k < 1) throw std::invalid_argument("a schedule needs at least one knot");
  auto respace = [&](Array<1>* q, int count) {
    std::vector<double> first;
    for (int s = 0; s < count; ++s) first.push_back(q->values()[static_cast<std::size_t>(s * knots)]);
    q->resize(count * k, true);
    for (int s = 0; s < count; ++s) std::fill_n(q->values().begin() + s * k, k, first[static_cast<std::size_t>(s)]);
  };
  for (Array<1>* q : {&speed, &angle, &tilt}) respace(q, source_count());
  respace(&vent_speed, vent_count());
  knots = k;
}

template <class G>
double SmokeModelOf<G>::scheduled(const Array<1>& q, int s, int t, int& knot, double& fraction) const {
  const double* a = q.values().data() + static_cast<std::size_t>(s * knots);
  if (knots == 1) {
    knot = 0;
    fraction = 0.0;
    return a[0];
  }
  const double tau = static_cast<double>(t) / std::max(1, settings.steps) * (knots - 1);
  knot = std::clamp(static_cast<int>(std::floor(tau)), 0, knots - 2);
  fraction = std::clamp(tau - knot, 0.0, 1.0);
  return (1.0 - fraction) * a[knot] + fraction * a[knot + 1];
}

template <class G>
void SmokeModelOf<G>::clear_adjoints() {
  for (Array<1>* q : {&initial_velocity, &initial_density, &initial_temperature, &source_x, &source_y, &source_z,
                      &source_radius, &density_rate, &temperature_rate, &speed, &angle, &tilt, &confinement, &vent_position,
                      &vent_position2, &vent_width, &vent_width2, &vent_speed, &vent_density_rate, &vent_temperature_rate})
    std::fill(q->adjoints().begin(), q->adjoints().end(), 0.0);
}

template <class G>
bool SmokeModelOf<G>::temperature_inert() const {
  auto zero = [](const Array<1>& a) {
    return std::all_of(a.values().begin(), a.values().end(), [](double x) { return x == 0.0; });
  };
  return settings.buoyancy == 0.0 && zero(temperature_rate) && zero(vent_temperature_rate) && zero(initial_temperature);
}

template struct SmokeModelOf<Grid>;
template struct SmokeModelOf<Grid3>;

namespace {

// The views of a state on a 2D or 3D grid, for mutable or constant doubles.
template <class T, class G>
FieldsOf<T, G::kDimension> fields_in(const G& g, std::span<T> state) {
  const std::size_t faces = static_cast<std::size_t>(g.face_count()), nc = static_cast<std::size_t>(g.cells());
  return {velocity_of(g, state.subspan(0, faces)), state.subspan(faces, nc), state.subspan(faces + nc, nc)};
}

}  // namespace

FieldsView fields_of(const Grid& g, std::span<double> state) { return fields_in(g, state); }
ConstFieldsView fields_of(const Grid& g, std::span<const double> state) { return fields_in(g, state); }
Fields3View fields_of(const Grid3& g, std::span<double> state) { return fields_in(g, state); }
ConstFields3View fields_of(const Grid3& g, std::span<const double> state) { return fields_in(g, state); }

}  // namespace simgrad::fluid
