#include "sims/softbody/mass_spring.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

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
MassSpring<D>::MassSpring(MassSpringPart<D>& part, const Subdomain& subdomain, MassSpringModel<D>* whole)
    : MassSpring(part.model) {
  if (subdomain.first() != part.nodes.first || subdomain.owned() != part.nodes.last - part.nodes.first ||
      subdomain.ghosts() != static_cast<Index>(part.ghosts.size()))
    throw std::invalid_argument("mass-spring: the part and its subdomain hold different nodes");
  split_ = &subdomain;
  part_ = &part;
  integrate_ = Kernel("integrate", subdomain.owned());
  const std::array<FieldRef, 1> shared = {model_.gravity.field()};
  integrate_.split_over(subdomain, shared);
  if (whole == nullptr) return;
  whole_ = whole;
  // Every process's first node, to tell each spring's first end's owner.
  const std::array<double, 1> first = {static_cast<double>(part.nodes.first)};
  std::vector<double> firsts;
  subdomain.gather_all(first, firsts);
  firsts.push_back(static_cast<double>(whole->node_count));
  const std::size_t processes = firsts.size() - 1;
  std::vector<std::vector<std::int64_t>> by_owner(processes);
  for (Index e = 0; e < whole->spring_count(); ++e) {
    const double a = static_cast<double>(whole->springs.node(e, 0));
    const std::size_t owner = static_cast<std::size_t>(std::upper_bound(firsts.begin(), firsts.end(), a) - firsts.begin()) - 1;
    by_owner[owner].push_back(e);
  }
  for (std::size_t r = 0; r < processes; ++r) {
    gathered_springs_.insert(gathered_springs_.end(), by_owner[r].begin(), by_owner[r].end());
    springs_sent_.push_back(static_cast<Index>(by_owner[r].size()));
    nodes_sent_.push_back(static_cast<Index>(firsts[r + 1] - firsts[r]));
  }
}

template <int D>
void MassSpring<D>::take_whole_parameters() {
  const MassSpringPart<D>& part = *part_;
  const Index own = split_->owned();
  auto held = [&](Index local) { return local < own ? part.nodes.first + local : part.ghosts[static_cast<std::size_t>(local - own)]; };
  auto take = []<int W>(const Array<W>& from, Array<W>& to, Index count, const auto& whole_of) {
    if (to.differentiable() != from.differentiable()) to.set_differentiable(from.differentiable());
    for (Index k = 0; k < count; ++k)
      std::copy_n(from.values().begin() + whole_of(k) * W, W, to.values().begin() + k * W);
  };
  const Index springs = model_.spring_count(), nodes = model_.node_count;
  auto spring = [&](Index k) { return part.springs[static_cast<std::size_t>(k)]; };
  take(whole_->stiffness, model_.stiffness, springs, spring);
  take(whole_->damping, model_.damping, springs, spring);
  take(whole_->rest_length, model_.rest_length, springs, spring);
  take(whole_->initial_position, model_.initial_position, nodes, held);
  take(whole_->initial_velocity, model_.initial_velocity, nodes, held);
  take(whole_->gravity, model_.gravity, 1, [](Index) { return Index(0); });
}

template <int D>
void MassSpring<D>::give_whole_adjoints() {
  // Only the differentiated arrays travel (the same on every process: tuning sets them on the
  // whole model, and each part follows it).
  std::array<std::pair<const Array<1>*, Array<1>*>, 3> per_spring_arrays = {{{&model_.stiffness, &whole_->stiffness},
                                                                            {&model_.damping, &whole_->damping},
                                                                            {&model_.rest_length, &whole_->rest_length}}};
  std::array<std::pair<const Array<D>*, Array<D>*>, 2> per_node_arrays = {
      {{&model_.initial_position, &whole_->initial_position}, {&model_.initial_velocity, &whole_->initial_velocity}}};
  const auto spring_end = std::remove_if(per_spring_arrays.begin(), per_spring_arrays.end(),
                                         [](const auto& a) { return !a.second->differentiable(); });
  const auto node_end = std::remove_if(per_node_arrays.begin(), per_node_arrays.end(),
                                       [](const auto& a) { return !a.second->differentiable(); });
  const std::span per_spring(per_spring_arrays.begin(), spring_end);
  const std::span per_node(per_node_arrays.begin(), node_end);

  const Index own = split_->owned();
  sent_.clear();
  for (Index k = 0; k < model_.spring_count(); ++k) {
    if (model_.springs.node(k, 0) >= own) continue;  // its first end is a ghost: its owner sends it
    for (const auto& [part, whole] : per_spring) sent_.push_back(part->adjoints()[k]);
  }
  for (Index i = 0; i < own; ++i)
    for (const auto& [part, whole] : per_node) sent_.insert(sent_.end(), &part->adjoints()[D * i], &part->adjoints()[D * i] + D);
  split_->gather_all(sent_, gathered_);
  std::size_t expected = 0;
  for (std::size_t r = 0; r < springs_sent_.size(); ++r)
    expected += static_cast<std::size_t>(springs_sent_[r]) * per_spring.size() +
                static_cast<std::size_t>(nodes_sent_[r] * D) * per_node.size();
  if (gathered_.size() != expected)
    throw std::logic_error("mass-spring: the processes of a split differ in which parameters they differentiate");

  // Assigned, not added: the whole model's adjoint is the part's, bits and signs of zero alike.
  const double* at = gathered_.data();
  std::size_t spring = 0;
  Index node = 0;
  for (std::size_t r = 0; r < springs_sent_.size(); ++r) {
    for (Index k = 0; k < springs_sent_[r]; ++k, ++spring)
      for (const auto& [part, whole] : per_spring) whole->adjoints()[gathered_springs_[spring]] = *at++;
    for (Index k = 0; k < nodes_sent_[r]; ++k, ++node)
      for (const auto& [part, whole] : per_node) {
        std::copy_n(at, D, &whole->adjoints()[D * node]);
        at += D;
      }
  }
  if (whole_->gravity.differentiable())
    std::copy(model_.gravity.adjoints().begin(), model_.gravity.adjoints().end(), whole_->gravity.adjoints().begin());
}

template <int D>
template <class Run>
void MassSpring<D>::deferring(const Run& run) {
  if (split_ == nullptr) return run();
  try {
    run();
  } catch (const NonFiniteError&) {
    if (!deferred_) deferred_ = std::current_exception();
  }
}

template <int D>
void MassSpring<D>::agree_on_errors(bool in_adjoint) {
  if (!split_->any(deferred_ != nullptr)) return;
  const std::exception_ptr error = std::exchange(deferred_, nullptr);
  if (!error) throw NonFiniteError("mass-spring step", -1, in_adjoint);
  try {
    std::rethrow_exception(error);
  } catch (const NonFiniteError& e) {
    // The kernels number a part's elements: name the whole model's node or spring.
    Index element = e.element();
    if (element >= 0 && e.kernel() == "integrate") element += part_->nodes.first;
    else if (element >= 0 && e.kernel() == "spring_forces") element = part_->springs[static_cast<std::size_t>(element)];
    else element = -1;
    throw NonFiniteError(e.kernel(), element, e.in_adjoint(), e.step());
  }
}

template <int D>
void MassSpring<D>::zero_ghost_adjoints(std::span<double> state_adjoint) const {
  const Index n = model_.node_count, own = split_->owned();
  for (const Index offset : {Index(0), D * n})
    std::fill(state_adjoint.begin() + offset + D * own, state_adjoint.begin() + offset + D * n, 0.0);
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
  deferring([&] { expand_actuation_.forward(actuation_body()); });
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
  deferring([&] { spring_forces_.forward(spring_body(f.x, f.v, f.force)); });
}

template <int D>
void MassSpring<D>::spring_forces_adjoint(const StepFields& f) {
  const SpringForce<D> springs = spring_body(f.x, f.v, f.force);
  if (model_.actuator_count > 0) std::fill(spring_signal_.adjoints().begin(), spring_signal_.adjoints().end(), 0.0);
  deferring([&] {
    if (derived_adjoints_) spring_forces_.derived_adjoint(springs);
    else spring_forces_.adjoint(springs);
  });
}

template <int D>
void MassSpring<D>::integrate(const StepFields& f) {
  deferring([&] { integrate_.forward(integrate_body(f.x, f.v, f.force, f.x_next, f.v_next, f.residual)); });
}

template <int D>
void MassSpring<D>::integrate_adjoint(const StepFields& f) {
  fill(node_force_.adjoints(), 0.0);
  const Integrate<D> body = integrate_body(f.x, f.v, f.force, f.x_next, f.v_next, f.residual);
  if (split_ != nullptr) {
    const std::array<FieldRef, 1> shared = {model_.gravity.field()};  // (its adjoint may have been enabled since)
    integrate_.split_over(*split_, shared);
  }
  deferring([&] {
    if (derived_adjoints_) integrate_.derived_adjoint(body);
    else integrate_.adjoint(body);
  });
  // The springs between parts read the adjoints of their ghost ends' forces.
  if (split_ != nullptr) split_->fill_ghost_rows(node_force_.adjoints(), D);
}

template <int D>
void MassSpring<D>::initial_state(std::span<double> state) {
  if (whole_ != nullptr) take_whole_parameters();
  write_initial_state(model_.initial_position, model_.initial_velocity, state);
}

template <int D>
void MassSpring<D>::initial_state_adjoint(std::span<const double> state_adjoint) {
  add_initial_state_adjoint(model_.initial_position, model_.initial_velocity, state_adjoint);
  if (whole_ != nullptr) give_whole_adjoints();
}

template <int D>
void MassSpring<D>::step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  // The node forces go straight into the residual when the rollout keeps one.
  Field<D> force = node_force_.field();
  if (!residual.empty()) force.value = residual.data();
  const StepFields fields{t, positions(state), velocities(state), force, positions(next), velocities(next), residual};
  walk_forward(*this, kStages, fields);
  if (split_ == nullptr) return;
  agree_on_errors(false);
  const Index n = model_.node_count;
  split_->fill_ghost_rows(next.first(static_cast<std::size_t>(D * n)), D);
  split_->fill_ghost_rows(next.subspan(static_cast<std::size_t>(D * n), static_cast<std::size_t>(D * n)), D);
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
  const StepFields fields{t, x, v, force, x_next, v_next, residual};
  walk_adjoint(*this, kStages, fields);
  if (split_ == nullptr) return;
  agree_on_errors(true);
  zero_ghost_adjoints(state_adjoint);
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
  if (whole_ == nullptr) return;
  for (auto* a : {&whole_->stiffness, &whole_->damping, &whole_->rest_length}) zero(*a);
  for (auto* a : {&whole_->gravity, &whole_->initial_position, &whole_->initial_velocity}) zero(*a);
}

template class MassSpring<2>;
template class MassSpring<3>;

}  // namespace simgrad::softbody
