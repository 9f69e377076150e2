#include "sims/fluid/smoke_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace simgrad::fluid {

void SmokeModel::reset(Grid g, SmokeSettings s) {
  grid = std::move(g);
  settings = s;
  initial_velocity.resize(static_cast<std::size_t>(grid.u_count() + grid.v_count()));
  initial_density.resize(static_cast<std::size_t>(grid.cells()));
  initial_temperature.resize(static_cast<std::size_t>(grid.cells()));
  confinement.resize(1);
  source_names.clear();
  knots = 1;
  for (Quantity* q : {&source_x, &source_y, &source_radius, &density_rate, &temperature_rate, &speed, &angle}) q->resize(0);
}

void SmokeModel::add_source(const std::string& name, double x, double y, double radius, double density,
                            double temperature, double source_speed, double source_angle) {
  if (!(radius > 0.0)) throw std::invalid_argument("source \"" + name + "\" needs a radius > 0");
  source_names.push_back(name);
  auto push = [](Quantity& q, double v, int count) {
    for (int k = 0; k < count; ++k) {
      q.value.push_back(v);
      q.adjoint.push_back(0.0);
    }
  };
  push(source_x, x, 1);
  push(source_y, y, 1);
  push(source_radius, radius, 1);
  push(density_rate, density, 1);
  push(temperature_rate, temperature, 1);
  push(speed, source_speed, knots);
  push(angle, source_angle, knots);
}

void SmokeModel::set_knots(int k) {
  if (k < 1) throw std::invalid_argument("a schedule needs at least one knot");
  for (Quantity* q : {&speed, &angle}) {
    std::vector<double> first;
    for (int s = 0; s < source_count(); ++s) first.push_back(q->value[static_cast<std::size_t>(s * knots)]);
    q->resize(static_cast<std::size_t>(source_count() * k));
    for (int s = 0; s < source_count(); ++s)
      std::fill_n(q->value.begin() + s * k, k, first[static_cast<std::size_t>(s)]);
  }
  knots = k;
}

double SmokeModel::scheduled(const Quantity& q, int s, int t, int& knot, double& fraction) const {
  const double* a = q.value.data() + static_cast<std::size_t>(s * knots);
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

void SmokeModel::clear_adjoints() {
  for (Quantity* q : {&initial_velocity, &initial_density, &initial_temperature, &source_x, &source_y, &source_radius,
                      &density_rate, &temperature_rate, &speed, &angle, &confinement})
    std::fill(q->adjoint.begin(), q->adjoint.end(), 0.0);
}

bool SmokeModel::temperature_inert() const {
  auto zero = [](const std::vector<double>& v) { return std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0; }); };
  return settings.buoyancy == 0.0 && zero(temperature_rate.value) && zero(initial_temperature.value);
}

FieldsView fields_of(const Grid& g, std::span<double> state) {
  const std::size_t nu = static_cast<std::size_t>(g.u_count()), nv = static_cast<std::size_t>(g.v_count()),
                    nc = static_cast<std::size_t>(g.cells());
  return {state.subspan(0, nu), state.subspan(nu, nv), state.subspan(nu + nv, nc), state.subspan(nu + nv + nc, nc)};
}

ConstFieldsView fields_of(const Grid& g, std::span<const double> state) {
  const std::size_t nu = static_cast<std::size_t>(g.u_count()), nv = static_cast<std::size_t>(g.v_count()),
                    nc = static_cast<std::size_t>(g.cells());
  return {state.subspan(0, nu), state.subspan(nu, nv), state.subspan(nu + nv, nc), state.subspan(nu + nv + nc, nc)};
}

}  // namespace simgrad::fluid
