#include "sims/mpm/mpm.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/parallel.hpp"

namespace simgrad::mpm {

template <int D>
Mpm<D>::Mpm(MpmModel<D>& model)
    : model_(model),
      stress_("particle_stress", model.particle_count),
      pairing_("particles_to_grid", model.particle_count),
      grid_("grid_update", model.node_count()),
      g2p_("grid_to_particle", model.particle_count) {
  model.validate();
  const Index n = model.particle_count, nodes = model.node_count();
  bins_.resize(model.settings.nodes, n);
  signal_.resize(n, true);
  affine_.resize(n, true);
  mass_.resize(n, true);
  grid_mass_.resize(nodes, true);
  grid_momentum_.resize(nodes, true);
  grid_velocity_.resize(nodes, true);
  actuator_signal_.assign(static_cast<std::size_t>(model.actuator_count), 0.0);
  actuator_adjoint_.assign(static_cast<std::size_t>(model.actuator_count), 0.0);
  replayed_.assign(static_cast<std::size_t>(state_size()), 0.0);
}

template <int D>
void Mpm<D>::set_controller(control::Controller* controller) {
  if (controller != nullptr && (controller->layout().creatures != 1 || controller->layout().actuators() != model_.actuator_count))
    throw std::invalid_argument("mpm: the controller drives " + std::to_string(controller->layout().actuators()) +
                                " actuators of " + std::to_string(controller->layout().creatures) + " creatures; the model has " +
                                std::to_string(model_.actuator_count) + " actuators of one");
  controller_ = controller;
}

template <int D>
Field<D> Mpm<D>::positions(std::span<const double> state, double* adjoint) const {
  return {const_cast<double*>(state.data()), adjoint, model_.particle_count};
}
template <int D>
Field<D> Mpm<D>::velocities(std::span<const double> state, double* adjoint) const {
  const Index offset = D * model_.particle_count;
  return {const_cast<double*>(state.data()) + offset, adjoint ? adjoint + offset : nullptr, model_.particle_count};
}
template <int D>
Field<D * D> Mpm<D>::affine_velocities(std::span<const double> state, double* adjoint) const {
  const Index offset = 2 * D * model_.particle_count;
  return {const_cast<double*>(state.data()) + offset, adjoint ? adjoint + offset : nullptr, model_.particle_count};
}
template <int D>
Field<D * D> Mpm<D>::deformations(std::span<const double> state, double* adjoint) const {
  const Index offset = (2 * D + D * D) * model_.particle_count;
  return {const_cast<double*>(state.data()) + offset, adjoint ? adjoint + offset : nullptr, model_.particle_count};
}
template <int D>
Field<1> Mpm<D>::plastic(std::span<const double> state, double* adjoint) const {
  const Index offset = (2 * D + 2 * D * D) * model_.particle_count;
  return {const_cast<double*>(state.data()) + offset, adjoint ? adjoint + offset : nullptr, model_.particle_count};
}

template <int D>
typename Mpm<D>::StepFields Mpm<D>::fields(int t, std::span<const double> state, std::span<double> state_adjoint, double* next,
                                           double* next_adjoint) const {
  const std::span<const double> n(next, static_cast<std::size_t>(state_size()));
  double* a = state_adjoint.empty() ? nullptr : state_adjoint.data();
  return {t,
          state,
          state_adjoint,
          positions(state, a),
          velocities(state, a),
          affine_velocities(state, a),
          deformations(state, a),
          plastic(state, a),
          positions(n, next_adjoint),
          velocities(n, next_adjoint),
          affine_velocities(n, next_adjoint),
          deformations(n, next_adjoint),
          plastic(n, next_adjoint)};
}

template <int D>
const std::array<Stage<Mpm<D>, typename Mpm<D>::StepFields>, 6> Mpm<D>::kStages = {{
    {"actuation", &Mpm::actuation, &Mpm::actuation_adjoint, &Mpm::always},
    {"particle_stress", &Mpm::particle_stress, &Mpm::particle_stress_adjoint, &Mpm::always},
    {"bin", &Mpm::bin, &Mpm::bin_adjoint, &Mpm::always},
    {"particles_to_grid", &Mpm::particles_to_grid, &Mpm::particles_to_grid_adjoint, &Mpm::always},
    {"grid_update", &Mpm::grid_update, &Mpm::grid_update_adjoint, &Mpm::always},
    {"grid_to_particle", &Mpm::grid_to_particle, &Mpm::grid_to_particle_adjoint},
}};

template <int D>
void Mpm<D>::expand_signals(int t, std::span<const double> state) {
  const int a = model_.actuator_count;
  if (controller_ != nullptr) {
    controller_->signals(t, state, actuator_signal_);
  } else {
    const int rows = static_cast<int>(model_.controls.size() / a);
    const double* row = model_.controls.values().data() + static_cast<Index>(std::min(t, rows - 1)) * a;
    std::copy_n(row, a, actuator_signal_.begin());
  }
  double* s = signal_.values().data();
  for (Index p = 0; p < model_.particle_count; ++p) {
    const std::int32_t k = model_.actuator[static_cast<std::size_t>(p)];
    s[p] = k >= 0 ? actuator_signal_[static_cast<std::size_t>(k)] : 0.0;
  }
}

template <int D>
void Mpm<D>::actuation(const StepFields& f) {
  if (model_.actuator_count > 0) expand_signals(f.t, f.state);
}

// The particles' signal adjoints summed per actuator in particle order, then into the controls
// of step t's row or the controller.
template <int D>
void Mpm<D>::actuation_adjoint(const StepFields& f) {
  const int a = model_.actuator_count;
  if (a == 0) return;
  std::fill(actuator_adjoint_.begin(), actuator_adjoint_.end(), 0.0);
  const double* g = signal_.adjoints().data();
  for (Index p = 0; p < model_.particle_count; ++p) {
    const std::int32_t k = model_.actuator[static_cast<std::size_t>(p)];
    if (k >= 0) actuator_adjoint_[static_cast<std::size_t>(k)] += g[p];
  }
  if (controller_ != nullptr) {
    controller_->signals_adjoint(f.t, f.state, actuator_adjoint_, f.state_adjoint);
    return;
  }
  if (!model_.controls.differentiable()) return;
  const int rows = static_cast<int>(model_.controls.size() / a);
  double* row = model_.controls.adjoints().data() + static_cast<Index>(std::min(f.t, rows - 1)) * a;
  for (int k = 0; k < a; ++k) row[k] += actuator_adjoint_[static_cast<std::size_t>(k)];
}

template <int D>
ParticleStress<D> Mpm<D>::stress_body(const StepFields& f) {
  const MpmSettings<D>& s = model_.settings;
  ParticleStress<D> body;
  body.f = f.f;
  body.c = f.c;
  body.plastic = f.plastic;
  body.youngs = model_.youngs.field();
  body.poisson = model_.poisson.field();
  body.density = model_.density.field();
  body.friction_angle = model_.friction_angle.field();
  body.hardening = model_.hardening.field();
  body.bulk_modulus = model_.bulk_modulus.field();
  body.volume = model_.volume.field();
  body.signal = signal_.field();
  body.direction = model_.direction.field();
  body.f_next = f.f_next;
  body.plastic_next = f.plastic_next;
  body.affine = affine_.field();
  body.mass = mass_.field();
  body.material = model_.material.data();
  body.actuator = model_.actuator_count > 0 ? model_.actuator.data() : nullptr;
  body.dt = s.dt;
  body.inv_dx = 1.0 / s.dx;
  body.actuation_strength = s.actuation_strength;
  body.plastic_sharpness = s.plastic_sharpness;
  body.critical_compression = s.critical_compression;
  body.critical_stretch = s.critical_stretch;
  return body;
}

template <int D>
void Mpm<D>::particle_stress(const StepFields& f) {
  stress_.forward(stress_body(f));
}

template <int D>
void Mpm<D>::particle_stress_adjoint(const StepFields& f) {
  fill(signal_.adjoints(), 0.0);
  stress_.adjoint(stress_body(f));
}

template <int D>
void Mpm<D>::bin(const StepFields& f) {
  const Index p = bins_.build(f.x.value, 1.0 / model_.settings.dx);
  if (p >= 0) throw ParticleLeftGrid(f.t, p, "(its stencil reaches past the grid's last node)");
}

template <int D>
void Mpm<D>::particles_to_grid(const StepFields& f) {
  const double* mass = mass_.values().data();
  const double* affine = affine_.values().data();
  double* grid_mass = grid_mass_.values().data();
  double* grid_momentum = grid_momentum_.values().data();
  fill(grid_mass_.values(), 0.0);
  fill(grid_momentum_.values(), 0.0);
  parallel_for_blocks(bins_.box_size(), [&](Index first, Index last) {
    mpm::particles_to_grid<D>(bins_, first, last, mass, f.v.value, affine, model_.settings.dx, grid_mass, grid_momentum);
  });
}

template <int D>
void Mpm<D>::particles_to_grid_adjoint(const StepFields& f) {
  fill(affine_.adjoints(), 0.0);
  fill(mass_.adjoints(), 0.0);
  ParticleToGridPairing<D> body{f.x, f.v, affine_.field(), mass_.field(), grid_mass_.adjoints().data(),
                                grid_momentum_.adjoints().data(), &bins_, model_.settings.dx};
  pairing_.adjoint(body);
}

template <int D>
GridUpdate<D> Mpm<D>::grid_body() {
  return {grid_mass_.field(), grid_momentum_.field(), grid_velocity_.field(), &model_.settings};
}

template <int D>
void Mpm<D>::grid_update(const StepFields&) {
  grid_.forward(grid_body());
}

template <int D>
void Mpm<D>::grid_update_adjoint(const StepFields&) {
  fill(grid_mass_.adjoints(), 0.0);
  fill(grid_momentum_.adjoints(), 0.0);
  grid_.adjoint(grid_body());
}

template <int D>
void Mpm<D>::grid_to_particle(const StepFields& f) {
  const MpmSettings<D>& s = model_.settings;
  g2p_.forward(GridToParticle<D>{f.x, f.x_next, f.v_next, f.c_next, grid_velocity_.values().data(), &bins_, s.dx, s.dt});
  // The first particle whose next stencil leaves the grid.
  const double inv_dx = 1.0 / s.dx;
  for (Index p = 0; p < model_.particle_count; ++p)
    for (int d = 0; d < D; ++d) {
      const double x = f.x_next.value[p * D + d];
      const int b = base_cell(x, inv_dx);
      if (b < 0 || b > s.nodes[d] - 3)
        throw ParticleLeftGrid(f.t, p, "along axis " + std::to_string(d) + " (at " + std::to_string(x) + ")");
    }
}

template <int D>
void Mpm<D>::grid_to_particle_adjoint(const StepFields& f) {
  const MpmSettings<D>& s = model_.settings;
  g2p_.adjoint(GridToParticle<D>{f.x, f.x_next, f.v_next, f.c_next, grid_velocity_.values().data(), &bins_, s.dx, s.dt});
  double* g = grid_velocity_.adjoints().data();
  fill(grid_velocity_.adjoints(), 0.0);
  parallel_for_blocks(bins_.box_size(), [&](Index first, Index last) {
    mpm::grid_to_particle_adjoint<D>(bins_, first, last, f.x_next.adjoint, f.v_next.adjoint, f.c_next.adjoint, s.dx, s.dt, g);
  });
}

template <int D>
void Mpm<D>::initial_state(std::span<double> state) {
  const Index n = model_.particle_count;
  std::fill(state.begin(), state.end(), 0.0);
  std::copy(model_.initial_position.values().begin(), model_.initial_position.values().end(), state.begin());
  std::copy(model_.initial_velocity.values().begin(), model_.initial_velocity.values().end(), state.begin() + D * n);
  const Field<D * D> f = deformations(state);
  const Field<1> pl = plastic(state);
  for (Index p = 0; p < n; ++p) {
    for (int i = 0; i < D; ++i) f.value[p * D * D + i * D + i] = 1.0;
    pl.value[p] = model_.material[static_cast<std::size_t>(p)] == Material::kSnow ? 1.0 : 0.0;
  }
}

template <int D>
void Mpm<D>::initial_state_adjoint(std::span<const double> state_adjoint) {
  const Index n = model_.particle_count;
  auto add = [&](Array<D>& a, Index offset) {
    if (!a.differentiable()) return;
    for (Index k = 0; k < D * n; ++k) a.adjoints()[k] += state_adjoint[offset + k];
  };
  add(model_.initial_position, 0);
  add(model_.initial_velocity, D * n);
}

template <int D>
void Mpm<D>::step(int t, std::span<const double> state, std::span<double> next, std::span<double>) {
  walk_forward(*this, kStages, fields(t, state, {}, next.data(), nullptr));
}

template <int D>
void Mpm<D>::step_adjoint(int t, std::span<const double> state, std::span<const double>, std::span<const double> next_adjoint,
                          std::span<double> state_adjoint) {
  walk_adjoint(*this, kStages, fields(t, state, state_adjoint, replayed_.data(), const_cast<double*>(next_adjoint.data())));
}

template <int D>
void Mpm<D>::clear_adjoints() {
  for (Array<1>* a : model_.scalar_parameters()) fill(a->adjoints(), 0.0);
  fill(model_.initial_position.adjoints(), 0.0);
  fill(model_.initial_velocity.adjoints(), 0.0);
  if (controller_ != nullptr) controller_->clear_adjoints();
}

template class Mpm<2>;
template class Mpm<3>;

}  // namespace simgrad::mpm
