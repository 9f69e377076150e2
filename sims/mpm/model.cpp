#include "sims/mpm/model.hpp"

#include <algorithm>
#include <cmath>

#include "sims/fem/material.hpp"

namespace simgrad::mpm {

namespace {

// Appends one particle's parameters to the arrays.
template <int D>
void append_particle(MpmModel<D>& m, const BodyOptions<D>& b, const Vec<double, D>& x, double volume, int body) {
  m.material.push_back(b.material);
  m.actuator.push_back(b.actuator);
  m.body.push_back(body);
  auto push = [](Array<1>& a, double v) {
    a.append(1, v, a.differentiable());
  };
  push(m.volume, volume);
  push(m.youngs, b.youngs);
  push(m.poisson, b.poisson);
  push(m.density, b.density);
  push(m.friction_angle, b.friction_angle);
  push(m.hardening, b.hardening);
  push(m.bulk_modulus, b.bulk_modulus);
  auto push_vec = [](Array<D>& a, const Vec<double, D>& v) {
    a.append(1, 0.0, a.differentiable());
    std::copy(v.c, v.c + D, a.values().end() - D);
  };
  const double length = norm(b.direction);
  push_vec(m.direction, length > 0.0 ? (1.0 / length) * b.direction : b.direction);
  push_vec(m.initial_position, x);
  push_vec(m.initial_velocity, b.velocity);
  ++m.particle_count;
}

// A particle's elastic wave speed at rest: sqrt((lambda + 2 mu) / rho), sqrt(K / rho) for a liquid.
template <int D>
double wave_speed(const MpmModel<D>& m, Index p) {
  const double rho = m.density.values()[p];
  if (m.material[p] == Material::kLiquid) return std::sqrt(m.bulk_modulus.values()[p] / rho);
  double mu = 0.0, lambda = 0.0;
  fem::lame_parameters(m.youngs.values()[p], m.poisson.values()[p], mu, lambda);
  return std::sqrt((lambda + 2.0 * mu) / rho);
}

}  // namespace

template <int D>
Index MpmModel<D>::add_body(const BodyOptions<D>& b) {
  const double spacing = b.spacing > 0.0 ? b.spacing : 0.5 * settings.dx;
  Vec<double, D> lo, step;
  Vec<int, D> count;
  for (int d = 0; d < D; ++d) {
    const double half = b.shape == ColliderShape::kBox ? b.half_extent[d] : b.radius;
    count[d] = b.shape == ColliderShape::kBox && b.counts[d] > 0 ? b.counts[d]
                                                                  : std::max(1, static_cast<int>(std::floor(2.0 * half / spacing + 0.5)));
    step[d] = 2.0 * half / count[d];
    lo[d] = b.centre[d] - half;
  }
  double volume = b.volume;
  if (volume <= 0.0) {
    volume = 1.0;
    for (int d = 0; d < D; ++d) volume *= step[d];
  }
  const int body_index = body.empty() ? 0 : body.back() + 1;
  Index total = 1;
  for (int d = 0; d < D; ++d) total *= count[d];
  const Index before = particle_count;
  for (Index k = 0; k < total; ++k) {
    // Axis 0 slowest, the last axis fastest.
    Index rest = k;
    Vec<double, D> x;
    for (int d = D - 1; d >= 0; --d) {
      const Index i = rest % count[d];
      rest /= count[d];
      x[d] = lo[d] + (static_cast<double>(i) + 0.5) * step[d];
    }
    if (b.shape == ColliderShape::kSphere && norm(x - b.centre) > b.radius) continue;
    append_particle(*this, b, x, volume, body_index);
  }
  if (b.actuator >= 0) actuator_count = std::max(actuator_count, b.actuator + 1);
  return particle_count - before;
}

template <int D>
void MpmModel<D>::resize_controls(int steps) {
  controls.resize(static_cast<Index>(std::max(steps, 1)) * actuator_count, controls.differentiable());
}

template <int D>
Index MpmModel<D>::node_count() const {
  Index n = 1;
  for (int d = 0; d < D; ++d) n *= settings.nodes[d];
  return n;
}

template <int D>
double MpmModel<D>::max_stable_dt() const {
  double fastest = 0.0;
  for (Index p = 0; p < particle_count; ++p) fastest = std::max(fastest, wave_speed(*this, p));
  return fastest > 0.0 ? settings.cfl * settings.dx / fastest : INFINITY;
}

template <int D>
void MpmModel<D>::validate() const {
  const MpmSettings<D>& s = settings;
  for (int d = 0; d < D; ++d)
    if (s.nodes[d] < 2 * s.bound + 3) throw MpmInputError("grid", -1, "at least " + std::to_string(2 * s.bound + 3) + " nodes per axis");
  if (!(s.dx > 0.0)) throw MpmInputError("dx", -1, "must be positive");
  if (!(s.dt > 0.0)) throw MpmInputError("dt", -1, "must be positive");
  for (Index p = 0; p < particle_count; ++p) {
    auto value = [p](const Array<1>& a) { return a.values()[p]; };
    for (int d = 0; d < D; ++d) {
      const double x = initial_position.values()[p * D + d];
      const double lo = 0.5 * s.dx, hi = (s.nodes[d] - 1.5) * s.dx;
      if (!(x >= lo && x < hi))
        throw MpmInputError("position", p, "coordinate " + std::to_string(d) + " = " + std::to_string(x) + " is outside the grid's [" +
                                               std::to_string(lo) + ", " + std::to_string(hi) + ")");
    }
    if (!(value(density) > 0.0)) throw MpmInputError("density", p, "must be positive, got " + std::to_string(value(density)));
    if (!(value(volume) > 0.0)) throw MpmInputError("volume", p, "must be positive");
    if (material[p] == Material::kLiquid) {
      if (!(value(bulk_modulus) > 0.0)) throw MpmInputError("bulk_modulus", p, "must be positive");
    } else {
      if (!(value(youngs) > 0.0)) throw MpmInputError("youngs_modulus", p, "must be positive");
      if (!(value(poisson) > -1.0 && value(poisson) < 0.5))
        throw MpmInputError("poisson_ratio", p, "must lie in (-1, 0.5), got " + std::to_string(value(poisson)));
    }
    if (material[p] == Material::kSand && !(value(friction_angle) > 0.0 && value(friction_angle) < 90.0))
      throw MpmInputError("friction_angle", p, "must lie in (0, 90) degrees");
    if (actuator[p] >= actuator_count) throw MpmInputError("actuator", p, "no such actuator");
  }
  const double limit = max_stable_dt();
  if (s.dt > limit)
    throw MpmInputError("dt", -1, std::to_string(s.dt) + " s is beyond the CFL limit " + std::to_string(limit) +
                                      " s (cfl x dx / fastest wave speed of the materials)");
}

template <int D>
MpmModel<D> MpmModel<D>::hard_twin() const {
  MpmModel hard = *this;
  hard.settings.boundary_sharpness = 0.0;
  hard.settings.plastic_sharpness = 0.0;
  return hard;
}

template <int D>
std::vector<Array<1>*> MpmModel<D>::scalar_parameters() {
  return {&youngs, &poisson, &density, &friction_angle, &hardening, &bulk_modulus, &controls};
}

template struct MpmModel<2>;
template struct MpmModel<3>;

}  // namespace simgrad::mpm
