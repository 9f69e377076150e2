#include "sims/fem/fem.hpp"

#include <algorithm>
#include <cmath>

#include "sims/softbody/node_state.hpp"

namespace simgrad::fem {

template <int D>
Fem<D>::Fem(FemModel<D>& model)
    : model_(model),
      expand_materials_("fem_materials", &model.element_regions),
      elastic_forces_("fem_elastic_forces", &model.elements),
      integrate_("fem_integrate", model.node_count),
      energy_("fem_elastic_energy", &model.elements) {
  mu_.resize(model.element_count(), true);
  lambda_.resize(model.element_count(), true);
  beta_.resize(model.element_count(), true);
  node_force_.resize(model.node_count, true);
  if (model.actuator_count > 0) {
    if (model.settings.integrator == FemIntegrator::kImplicitEuler)
      throw std::invalid_argument("fem: actuated elements need the symplectic Euler integrator");
    const auto per_element = static_cast<std::size_t>(model.element_count());
    if (model.element_actuator.size() != per_element || model.element_axis.size() != per_element ||
        model.actuation.size() == 0 || model.actuation.size() % model.actuator_count != 0)
      throw std::invalid_argument("fem: actuators need an actuator and an axis per element and whole rows of signals");
    rest_actuated_.resize(model.element_count(), true);
  }
  if (model.settings.integrator == FemIntegrator::kImplicitEuler) {
    implicit_ = std::make_unique<ImplicitEuler<D>>(*this);
    replay_.resize(static_cast<std::size_t>(state_size()));
  }
}

template <int D>
Fem<D>::~Fem() = default;

template <int D>
Index Fem<D>::residual_size() const {
  return implicit_ || adjoint_reads_forces() ? D * model_.node_count : 0;
}

template <int D>
bool Fem<D>::adjoint_reads_forces() const {
  if (model_.inverse_mass.differentiable()) return true;
  return std::any_of(model_.planes.begin(), model_.planes.end(),
                     [](const ContactPlane<D>& plane) { return plane.model != ContactModel::kPenalty; });
}

template <int D>
Field<D> Fem<D>::positions(std::span<const double> state, double* adjoint) const {
  return softbody::state_positions<D>(state, adjoint, model_.node_count);
}

template <int D>
Field<D> Fem<D>::velocities(std::span<const double> state, double* adjoint) const {
  return softbody::state_velocities<D>(state, adjoint, model_.node_count);
}

template <int D>
ElasticForce<D> Fem<D>::force_body(Field<D> x, Field<D> v, Field<D> force) {
  ElasticForce<D> body;
  body.x = x;
  body.v = v;
  body.rest_inverse = model_.actuator_count > 0 ? rest_actuated_.field() : model_.rest_inverse.field();
  body.rest_volume = model_.rest_volume.field();
  body.mu = mu_.field();
  body.lambda = lambda_.field();
  body.stiffness_damping = beta_.field();
  body.node_force = force;
  body.material = model_.settings.material;
  body.damped = damped();
  return body;
}

// Undamped bodies skip the viscous stress, unless its coefficient is being tuned.
template <int D>
bool Fem<D>::damped() const {
  return model_.damping.differentiable() || std::any_of(model_.damping.values().begin(),
                                                        model_.damping.values().end(),
                                                        [](double b) { return b != 0.0; });
}

template <int D>
Integrate<D> Fem<D>::integrate_body(Field<D> x, Field<D> v, Field<D> force, Field<D> x_next, Field<D> v_next) {
  return softbody::integrate_step<D>(model_, x, v, force, x_next, v_next,
                          std::exp(-model_.mass_damping.values()[0] * model_.settings.dt));
}

template <int D>
ExpandMaterial Fem<D>::material_body() {
  return {model_.youngs.field(), model_.poisson.field(), model_.damping.field(),
          mu_.field(),           lambda_.field(),        beta_.field()};
}

template <int D>
void Fem<D>::expand_materials() {
  expand_materials_.forward(material_body());
}

template <int D>
std::size_t Fem<D>::actuation_offset(int t) const {
  const auto a = static_cast<std::size_t>(model_.actuator_count);
  const std::size_t rows = model_.actuation.size() / a;
  return std::min(static_cast<std::size_t>(t), rows - 1) * a;
}

// Stretching the rest shape by 1 + s along axis k scales column k of Dm^-1 by 1 / (1 + s).
template <int D>
void Fem<D>::actuate(int t) {
  const double* signal = model_.actuation.values().data() + actuation_offset(t);
  const auto rest = model_.rest_inverse.values();
  const auto out = rest_actuated_.values();
  std::copy(rest.begin(), rest.end(), out.begin());
  for (Index e = 0; e < model_.element_count(); ++e) {
    const std::int32_t k = model_.element_actuator[e];
    if (k < 0) continue;
    const double scale = 1.0 / (1.0 + signal[k]);
    for (int i = 0; i < D; ++i) out[e * D * D + i * D + model_.element_axis[e]] *= scale;
  }
}

// d(1 / (1 + s)) / ds = -1 / (1 + s)^2, times the adjoints of the scaled column's entries and
// their unscaled values; summed into the signals in element order.
template <int D>
void Fem<D>::actuate_adjoint(int t) {
  const std::size_t offset = actuation_offset(t);
  const double* signal = model_.actuation.values().data() + offset;
  double* signal_adjoint = model_.actuation.adjoints().data() + offset;
  const auto rest = model_.rest_inverse.values();
  const auto rest_adjoint = rest_actuated_.adjoints();
  for (Index e = 0; e < model_.element_count(); ++e) {
    const std::int32_t k = model_.element_actuator[e];
    if (k < 0) continue;
    const double stretch = 1.0 + signal[k];
    double sum = 0.0;
    for (int i = 0; i < D; ++i) {
      const Index at = e * D * D + i * D + model_.element_axis[e];
      sum += rest_adjoint[at] * rest[at];
    }
    signal_adjoint[k] -= sum / (stretch * stretch);
  }
}

template <int D>
void Fem<D>::initial_state(std::span<double> state) {
  expand_materials();
  softbody::write_initial_state(model_.initial_position, model_.initial_velocity, state);
}

template <int D>
void Fem<D>::initial_state_adjoint(std::span<const double> state_adjoint) {
  // The element parameters' adjoints, summed over every step, go back to the regions.
  expand_materials_.adjoint(material_body());
  softbody::add_initial_state_adjoint(model_.initial_position, model_.initial_velocity, state_adjoint);
}

template <int D>
const std::array<Stage<Fem<D>, typename Fem<D>::StepFields>, 3> Fem<D>::kStages = {{
    {"actuate", &Fem::actuate_stage, &Fem::actuate_stage_adjoint, &Fem::actuated},
    {"elastic_forces", &Fem::elastic_forces_stage, &Fem::elastic_forces_stage_adjoint, &Fem::forces_replayed},
    {"integrate", &Fem::integrate_stage, &Fem::integrate_stage_adjoint},
}};

template <int D>
void Fem<D>::actuate_stage(const StepFields& f) {
  if (model_.actuator_count > 0) actuate(f.t);
}

template <int D>
void Fem<D>::actuate_stage_adjoint(const StepFields& f) {
  if (model_.actuator_count > 0 && model_.actuation.differentiable()) actuate_adjoint(f.t);
}

template <int D>
void Fem<D>::elastic_forces_stage(const StepFields& f) {
  elastic_forces_.forward(force_body(f.x, f.v, f.force));
}

// The actuated rest shapes' adjoints start from zero each step: the forces' adjoint adds to them.
template <int D>
void Fem<D>::elastic_forces_stage_adjoint(const StepFields& f) {
  if (model_.actuator_count > 0) fill(rest_actuated_.adjoints(), 0.0);
  elastic_forces_.adjoint(force_body(f.x, f.v, f.force));
}

template <int D>
void Fem<D>::integrate_stage(const StepFields& f) {
  integrate_.forward(integrate_body(f.x, f.v, f.force, f.x_next, f.v_next));
}

template <int D>
void Fem<D>::integrate_stage_adjoint(const StepFields& f) {
  fill(node_force_.adjoints(), 0.0);
  const Integrate<D> body = integrate_body(f.x, f.v, f.force, f.x_next, f.v_next);
  integrate_.adjoint(body);
  if (model_.mass_damping.differentiable()) mass_damping_adjoint(body, f.state, f.next_adjoint);
}

template <int D>
void Fem<D>::step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  if (implicit_) {
    if (model_.actuator_count > 0) actuate(t);
    implicit_->step(state, next);
    const Index n = D * model_.node_count;
    if (!residual.empty()) std::copy(next.begin() + n, next.end(), residual.begin());
    return;
  }
  // The node forces go straight into the residual when the rollout keeps one.
  Field<D> force = node_force_.field();
  if (!residual.empty()) force.value = residual.data();
  walk_forward(*this, kStages,
               StepFields{t, positions(state), velocities(state), force, positions(next), velocities(next), residual, state, {}});
}

template <int D>
void Fem<D>::step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                          std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  if (implicit_) {
    if (model_.actuator_count > 0) {
      actuate(t);
      fill(rest_actuated_.adjoints(), 0.0);
    }
    // The new velocity: the residual, or the step replayed.
    std::span<const double> new_velocity = residual;
    if (residual.empty()) {
      implicit_->step(state, replay_);
      new_velocity = std::span<const double>(replay_).subspan(D * model_.node_count);
    }
    implicit_->step_adjoint(state, new_velocity, next_adjoint, state_adjoint);
    return;
  }
  const Field<D> x = positions(state, state_adjoint.data());
  const Field<D> v = velocities(state, state_adjoint.data());
  double* next_adj = const_cast<double*>(next_adjoint.data());
  const Field<D> x_next{nullptr, next_adj, model_.node_count};
  const Field<D> v_next{nullptr, next_adj + D * model_.node_count, model_.node_count};

  // The node forces, when the adjoint reads them: from the residual when the rollout kept it,
  // else replayed (kStages).
  Field<D> force = node_force_.field();
  if (!residual.empty()) force.value = const_cast<double*>(residual.data());
  walk_adjoint(*this, kStages, StepFields{t, x, v, force, x_next, v_next, residual, state, next_adjoint});
}

// v' = exp(-alpha dt) v + ..., so alpha's adjoint is -dt exp(-alpha dt) sum_i (a_v'_i + dt a_x'_i) . v_i
// over the free nodes. Impact planes change v' after the decay, so only penalty planes are allowed.
template <int D>
void Fem<D>::mass_damping_adjoint(const Integrate<D>& integrate, std::span<const double> state,
                                  std::span<const double> next_adjoint) {
  if (integrate.has_impact_planes)
    throw std::logic_error("fem: mass damping is differentiated with penalty contact planes only");
  const Index n = D * model_.node_count;
  const double dt = model_.settings.dt;
  double sum = 0.0;
  for (Index i = 0; i < n; ++i)
    if (model_.inverse_mass.values()[i / D] != 0.0) sum += (next_adjoint[n + i] + dt * next_adjoint[i]) * state[n + i];
  model_.mass_damping.adjoints()[0] -= dt * integrate.velocity_decay * sum;
}

template <int D>
void Fem<D>::clear_adjoints() {
  auto zero = [](auto& array) { std::fill(array.adjoints().begin(), array.adjoints().end(), 0.0); };
  zero(model_.youngs);
  zero(model_.poisson);
  zero(model_.damping);
  zero(model_.mass_damping);
  zero(model_.gravity);
  zero(model_.initial_position);
  zero(model_.initial_velocity);
  zero(model_.actuation);
  zero(mu_);
  zero(lambda_);
  zero(beta_);
}

template <int D>
void Fem<D>::elastic_forces(std::span<const double> state, std::span<double> force) {
  expand_materials();
  Field<D> f{force.data(), nullptr, model_.node_count};
  elastic_forces_.forward(force_body(positions(state), velocities(state), f));
}

template <int D>
void Fem<D>::force_jacobians(std::span<const double> state, ForceJacobians& out) {
  expand_materials();
  const Index n = D * model_.node_count;
  force_jacobians_at(state.first(n), state.subspan(n, n), out);
}

template <int D>
void Fem<D>::force_jacobians_at(std::span<const double> x, std::span<const double> v, ForceJacobians& out) {
  fem::force_jacobians(model_, mu_.values(), lambda_.values(), damped() ? beta_.values().data() : nullptr, x, v,
                            out);
}

template <int D>
double Fem<D>::energy(std::span<const double> state) {
  expand_materials();
  ElasticEnergy<D> body{positions(state), model_.rest_inverse.field(), model_.rest_volume.field(), mu_.field(),
                        lambda_.field(), model_.settings.material};
  double total = energy_.sum(body);
  const auto w = model_.inverse_mass.values();
  const auto g = model_.gravity.values();
  for (Index n = 0; n < model_.node_count; ++n) {
    if (w[n] == 0.0) continue;
    const double mass = 1.0 / w[n];
    for (int c = 0; c < D; ++c) {
      const double vc = state[D * model_.node_count + n * D + c];
      total += 0.5 * mass * vc * vc - mass * g[c] * state[n * D + c];
    }
  }
  return total;
}

template class Fem<2>;
template class Fem<3>;

}  // namespace simgrad::fem
