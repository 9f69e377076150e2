#include "sims/creature/creature.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "core/diagnostics.hpp"
#include "core/relax.hpp"

namespace simgrad::creature {

namespace {

// The smooth maximum of (m, y) and its partial derivatives.
struct SmoothMax {
  double value, d_m, d_y;
};
SmoothMax smooth_max(double m, double y, double temperature) {
  const std::array<double, 2> pair{m, y};
  const double value = relax::logsumexp_max(std::span<const double>(pair), temperature);
  if (temperature <= 0.0) return {value, y > m ? 0.0 : 1.0, y > m ? 1.0 : 0.0};
  return {value, std::exp((m - value) / temperature), std::exp((y - value) / temperature)};
}

}  // namespace

namespace {

// Throws unless the controller's creatures cover the body's nodes and actuators.
void check_layout(const control::ControllerLayout& layout, Index nodes, int actuators) {
  if (static_cast<Index>(layout.creatures) * layout.nodes != nodes)
    throw std::invalid_argument("creature: the controller's creatures do not cover the body's nodes");
  if (static_cast<Index>(layout.creatures) * layout.actuators() != actuators)
    throw std::invalid_argument("creature: the controller's actuators do not match the body's");
}

}  // namespace

Creature::Creature(softbody::MassSpringModel<2>& model, control::Controller& controller, double peak_temperature)
    : peak_temperature(peak_temperature),
      springs_(std::make_unique<softbody::MassSpring<2>>(model)),
      body_(springs_.get()),
      actuation_(&model.actuation),
      actuator_count_(model.actuator_count),
      controller_(controller),
      water_drag_("water_drag", &model.springs) {
  check_layout(controller.layout(), model.node_count, model.actuator_count);
  model.actuation.set_differentiable(true);
}

Creature::Creature(fem::FemModel<2>& model, control::Controller& controller, double peak_temperature)
    : peak_temperature(peak_temperature), controller_(controller) {
  check_layout(controller.layout(), model.node_count, model.actuator_count);
  model.actuation.set_differentiable(true);
  elements_ = std::make_unique<fem::Fem<2>>(model);
  body_ = elements_.get();
  actuation_ = &model.actuation;
  actuator_count_ = model.actuator_count;
}

void Creature::set_water(const WaterSettings& water) {
  water_ = water;
  const bool on = water.normal_drag != 0.0 || water.tangential_drag != 0.0;
  if (on && !springs_) throw std::invalid_argument("creature: water acts on mass-spring bodies only");
  impulse_.resize(on ? model().node_count : 0, true);
  swum_.assign(on ? static_cast<std::size_t>(body_size()) : 0, 0.0);
  swum_adjoint_.assign(swum_.size(), 0.0);
}

std::unique_ptr<Creature> Creature::hard_twin(softbody::MassSpringModel<2>& body) const {
  return like_this(std::make_unique<Creature>(body, controller_, 0.0));
}

std::unique_ptr<Creature> Creature::hard_twin(fem::FemModel<2>& body) const {
  return like_this(std::make_unique<Creature>(body, controller_, 0.0));
}

std::unique_ptr<Creature> Creature::like_this(std::unique_ptr<Creature> twin) const {
  twin->speed_limit = speed_limit;
  twin->set_water(water_);
  return twin;
}

namespace {

// Sets a body's ground, its first plane, to time of impact.
template <class Body>
Body with_hard_ground(const Body& body) {
  Body hard = body;
  if (!hard.planes.empty()) hard.planes.front().model = softbody::ContactModel::kImpactStop;
  return hard;
}

}  // namespace

softbody::MassSpringModel<2> hard_ground_twin(const softbody::MassSpringModel<2>& body) { return with_hard_ground(body); }

fem::FemModel<2> hard_ground_twin(const fem::FemModel<2>& body) { return with_hard_ground(body); }

WaterDrag Creature::water_body(std::span<const double> body_state, double* adjoint) {
  const Index n = model().node_count;
  WaterDrag w;
  w.x = {const_cast<double*>(body_state.data()), adjoint, n};
  w.v = {const_cast<double*>(body_state.data()) + 2 * n, adjoint ? adjoint + 2 * n : nullptr, n};
  w.impulse = impulse_.field();
  w.water = water_;
  w.dt = model().settings.dt;
  return w;
}

void Creature::swim(std::span<const double> body_state) {
  water_drag_.forward(water_body(body_state, nullptr));
  std::copy(body_state.begin(), body_state.end(), swum_.begin());
  const Index n = model().node_count;
  const auto w = model().inverse_mass.values();
  const auto impulse = impulse_.values();
  for (Index i = 0; i < n; ++i)
    for (int k = 0; k < 2; ++k) swum_[static_cast<std::size_t>(2 * n + 2 * i + k)] += w[i] * impulse[2 * i + k];
}

double Creature::centre_height(std::span<const double> state, int c) const {
  const int n = nodes();
  double y = 0.0;
  for (int j = 0; j < n; ++j) y += state[(static_cast<Index>(c) * n + j) * 2 + 1];
  return y * (1.0 / n);
}

std::span<double> Creature::signal_row(int t, bool adjoint) {
  Array<1>& actuation = *actuation_;
  const int a = actuator_count_;
  if (a == 0) return {};
  const int rows = static_cast<int>(actuation.size() / a);
  const std::size_t offset = static_cast<std::size_t>(std::min(t, rows - 1)) * static_cast<std::size_t>(a);
  return (adjoint ? actuation.adjoints() : actuation.values()).subspan(offset, static_cast<std::size_t>(a));
}

void Creature::initial_state(std::span<double> state) {
  body_->initial_state(state.first(static_cast<std::size_t>(body_size())));
  for (int c = 0; c < creatures(); ++c) state[static_cast<std::size_t>(body_size() + c)] = centre_height(state, c);
}

void Creature::initial_state_adjoint(std::span<const double> state_adjoint) {
  // The initial peaks are the initial centre heights: their adjoints join the nodes' heights.
  std::vector<double> body_adjoint(state_adjoint.begin(), state_adjoint.begin() + body_size());
  const int n = nodes();
  for (int c = 0; c < creatures(); ++c)
    for (int j = 0; j < n; ++j)
      body_adjoint[static_cast<std::size_t>((static_cast<Index>(c) * n + j) * 2 + 1)] +=
          state_adjoint[static_cast<std::size_t>(body_size() + c)] * (1.0 / n);
  body_->initial_state_adjoint(body_adjoint);
}

void Creature::step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  const std::size_t body = static_cast<std::size_t>(body_size());
  if (actuator_count_ > 0) controller_.signals(t, state.first(body), signal_row(t, false));
  if (swum_.empty()) {
    body_->step(t, state.first(body), next.first(body), residual);
  } else {
    swim(state.first(body));
    body_->step(t, swum_, next.first(body), residual);
  }
  const std::span<const double> v = next.subspan(body / 2, body / 2);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (std::abs(v[i]) > speed_limit) throw NonFiniteError("creature speed limit", static_cast<Index>(i / 2), false);
  for (int c = 0; c < creatures(); ++c)
    next[body + static_cast<std::size_t>(c)] =
        smooth_max(state[body + static_cast<std::size_t>(c)], centre_height(state, c), peak_temperature).value;
}

void Creature::step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                            std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  const std::size_t body = static_cast<std::size_t>(body_size());
  const int n = nodes();
  for (int c = 0; c < creatures(); ++c) {
    const std::size_t at = body + static_cast<std::size_t>(c);
    const SmoothMax s = smooth_max(state[at], centre_height(state, c), peak_temperature);
    state_adjoint[at] += next_adjoint[at] * s.d_m;
    const double g_y = next_adjoint[at] * s.d_y * (1.0 / n);
    for (int j = 0; j < n; ++j) state_adjoint[static_cast<std::size_t>((static_cast<Index>(c) * n + j) * 2 + 1)] += g_y;
  }
  const bool actuated = actuator_count_ > 0;
  if (actuated) {
    controller_.signals(t, state.first(body), signal_row(t, false));
    std::span<double> row_adjoint = signal_row(t, true);
    std::fill(row_adjoint.begin(), row_adjoint.end(), 0.0);
  }
  if (swum_.empty()) {
    body_->step_adjoint(t, state.first(body), residual, next_adjoint.first(body), state_adjoint.first(body));
  } else {
    // The water's step is the identity plus the impulse: its adjoint passes the swum state's
    // adjoint through and sends that of the velocities, times the inverse mass, to the impulse.
    swim(state.first(body));
    std::fill(swum_adjoint_.begin(), swum_adjoint_.end(), 0.0);
    body_->step_adjoint(t, swum_, residual, next_adjoint.first(body), swum_adjoint_);
    const Index n = model().node_count;
    const auto w = model().inverse_mass.values();
    for (std::size_t i = 0; i < body; ++i) state_adjoint[i] += swum_adjoint_[i];
    for (Index i = 0; i < n; ++i)
      for (int k = 0; k < 2; ++k)
        impulse_.adjoints()[2 * i + k] = w[i] * swum_adjoint_[static_cast<std::size_t>(2 * n + 2 * i + k)];
    water_drag_.adjoint(water_body(state.first(body), state_adjoint.data()));
  }
  if (actuated) controller_.signals_adjoint(t, state.first(body), signal_row(t, true), state_adjoint.first(body));
}

void Creature::clear_adjoints() {
  body_->clear_adjoints();
  controller_.clear_adjoints();
}

}  // namespace simgrad::creature
