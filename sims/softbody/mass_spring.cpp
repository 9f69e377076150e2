#include "sims/softbody/mass_spring.hpp"

#include <algorithm>
#include <cmath>

#include "sims/softbody/node_state.hpp"

namespace simgrad::softbody {

template <int D>
MassSpring<D>::MassSpring(MassSpringModel<D>& model)
    : model_(model),
      expand_actuation_("expand_actuation", &model.spring_actuators),
      spring_forces_("spring_forces", &model.springs),
      integrate_("integrate", model.node_count) {
  actuator_signal_.resize(model.actuator_count + 1, true);
  spring_signal_.resize(model.actuator_count > 0 ? model.spring_count() : 0, true);
  node_force_.resize(model.node_count, true);
}

template <int D>
Field<D> MassSpring<D>::positions(std::span<const double> state, double* adjoint) const {
  return state_positions<D>(state, adjoint, model_.node_count);
}

template <int D>
Field<D> MassSpring<D>::velocities(std::span<const double> state, double* adjoint) const {
  return state_velocities<D>(state, adjoint, model_.node_count);
}

template <int D>
SpringForce<D> MassSpring<D>::spring_body(Field<D> x, Field<D> v, Field<D> force) {
  SpringForce<D> body;
  body.x = x;
  body.v = v;
  body.stiffness = model_.stiffness.field();
  body.damping = model_.damping.field();
  body.rest_length = model_.rest_length.field();
  body.actuation = spring_signal_.field();
  body.node_force = force;
  body.length_epsilon = model_.settings.length_epsilon;
  body.actuated = model_.actuator_count > 0;
  return body;
}

template <int D>
int MassSpring<D>::penalty_plane_count() const {
  return static_cast<int>(std::count_if(model_.planes.begin(), model_.planes.end(),
                                        [](const ContactPlane<D>& p) { return p.model == ContactModel::kPenalty; }));
}

template <int D>
Index MassSpring<D>::residual_size() const {
  constexpr Index kRecord = sizeof(PenaltyNormal) / sizeof(double);
  return (D + kRecord * penalty_plane_count()) * model_.node_count;
}

// The integrate body; with a residual, its contact records follow the node forces in it.
template <int D>
Integrate<D> MassSpring<D>::integrate_body(Field<D> x, Field<D> v, Field<D> force, Field<D> x_next,
                                           Field<D> v_next, std::span<const double> residual) {
  Integrate<D> body =
      integrate_step<D>(model_, x, v, force, x_next, v_next, std::exp(-model_.settings.drag * model_.settings.dt));
  body.penalty_planes = penalty_plane_count();
  if (!residual.empty() && body.penalty_planes > 0) {
    static_assert(sizeof(PenaltyNormal) == 2 * sizeof(double) && alignof(PenaltyNormal) == alignof(double));
    body.penalty_record = reinterpret_cast<PenaltyNormal*>(const_cast<double*>(residual.data()) + D * model_.node_count);
  }
  return body;
}

template <int D>
ExpandActuation MassSpring<D>::actuation_body() {
  return {actuator_signal_.field(), spring_signal_.field()};
}

template <int D>
const std::array<Stage<MassSpring<D>, typename MassSpring<D>::StepFields>, 3> MassSpring<D>::kStages = {{
    {"expand_actuation", &MassSpring::expand_actuation, &MassSpring::expand_actuation_adjoint, &MassSpring::always},
    {"spring_forces", &MassSpring::spring_forces, &MassSpring::spring_forces_adjoint, &MassSpring::without_residual},
    {"integrate", &MassSpring::integrate, &MassSpring::integrate_adjoint},
}};

template <int D>
void MassSpring<D>::expand_actuation(const StepFields& f) {
  if (model_.actuator_count == 0) return;
  const int a = model_.actuator_count;
  const int row = std::min(f.t, static_cast<int>(model_.actuation.size() / a) - 1);
  std::copy_n(model_.actuation.values().data() + static_cast<Index>(row) * a, a, actuator_signal_.values().data());
  actuator_signal_.values()[a] = 0.0;
  expand_actuation_.forward(actuation_body());
}

// Adds the signals' adjoints to step t's row of the actuation (when it is differentiated).
template <int D>
void MassSpring<D>::expand_actuation_adjoint(const StepFields& f) {
  if (model_.actuator_count == 0 || !model_.actuation.differentiable()) return;
  const int a = model_.actuator_count;
  const int rows = static_cast<int>(model_.actuation.size() / a);
  std::fill(actuator_signal_.adjoints().begin(), actuator_signal_.adjoints().end(), 0.0);
  expand_actuation_.adjoint(actuation_body());
  double* row = model_.actuation.adjoints().data() + static_cast<Index>(std::min(f.t, rows - 1)) * a;
  for (int k = 0; k < a; ++k) row[k] += actuator_signal_.adjoints()[k];
}

template <int D>
void MassSpring<D>::spring_forces(const StepFields& f) {
  spring_forces_.forward(spring_body(f.x, f.v, f.force));
}

template <int D>
void MassSpring<D>::spring_forces_adjoint(const StepFields& f) {
  const SpringForce<D> springs = spring_body(f.x, f.v, f.force);
  if (model_.actuator_count > 0) std::fill(spring_signal_.adjoints().begin(), spring_signal_.adjoints().end(), 0.0);
  if (derived_adjoints_) spring_forces_.derived_adjoint(springs);
  else spring_forces_.adjoint(springs);
}

template <int D>
void MassSpring<D>::integrate(const StepFields& f) {
  integrate_.forward(integrate_body(f.x, f.v, f.force, f.x_next, f.v_next, f.residual));
}

template <int D>
void MassSpring<D>::integrate_adjoint(const StepFields& f) {
  fill(node_force_.adjoints(), 0.0);
  const Integrate<D> body = integrate_body(f.x, f.v, f.force, f.x_next, f.v_next, f.residual);
  if (derived_adjoints_) integrate_.derived_adjoint(body);
  else integrate_.adjoint(body);
}

template <int D>
void MassSpring<D>::initial_state(std::span<double> state) {
  write_initial_state(model_.initial_position, model_.initial_velocity, state);
}

template <int D>
void MassSpring<D>::initial_state_adjoint(std::span<const double> state_adjoint) {
  add_initial_state_adjoint(model_.initial_position, model_.initial_velocity, state_adjoint);
}

template <int D>
void MassSpring<D>::step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  // The node forces go straight into the residual when the rollout keeps one.
  Field<D> force = node_force_.field();
  if (!residual.empty()) force.value = residual.data();
  walk_forward(*this, kStages, StepFields{t, positions(state), velocities(state), force, positions(next), velocities(next), residual});
}

template <int D>
void MassSpring<D>::step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                                 std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  const Field<D> x = positions(state, state_adjoint.data());
  const Field<D> v = velocities(state, state_adjoint.data());
  // The outputs carry only adjoints: their values are not needed by any adjoint.
  double* next_adj = const_cast<double*>(next_adjoint.data());
  const Field<D> x_next{nullptr, next_adj, model_.node_count};
  const Field<D> v_next{nullptr, next_adj + D * model_.node_count, model_.node_count};

  // The node forces: from the residual when the rollout kept it, else replayed (kStages).
  Field<D> force = node_force_.field();
  if (!residual.empty()) force.value = const_cast<double*>(residual.data());
  walk_adjoint(*this, kStages, StepFields{t, x, v, force, x_next, v_next, residual});
}

template <int D>
void MassSpring<D>::clear_adjoints() {
  auto zero = [](auto& array) { std::fill(array.adjoints().begin(), array.adjoints().end(), 0.0); };
  zero(model_.stiffness);
  zero(model_.damping);
  zero(model_.rest_length);
  zero(model_.actuation);
  zero(model_.gravity);
  zero(model_.initial_position);
  zero(model_.initial_velocity);
  zero(model_.inverse_mass);
}

template class MassSpring<2>;
template class MassSpring<3>;

}  // namespace simgrad::softbody
