#include "sims/rigid/losses.hpp"

#include "core/local_ad.hpp"
#include "sims/rigid/kinematics.hpp"

namespace simgrad::rigid {

namespace {

// The height the body of free joint `joint` will reach: its height plus its upward speed's
// squared over 2 g (a free joint's position and linear velocity are its body origin's, in the
// world frame).
template <class S>
S apex_height(const RigidModel& m, int joint, const S* qpos, const S* qvel) {
  const Joint& j = m.joints[static_cast<std::size_t>(joint)];
  const double g = norm(m.settings.gravity);
  const Vec3<double> up = (-1.0 / g) * m.settings.gravity;
  S height(0.0), rise(0.0);
  for (std::size_t k = 0; k < 3; ++k) {
    height = height + up.c[k] * qpos[static_cast<std::size_t>(j.qpos_address) + k];
    rise = rise + up.c[k] * qvel[static_cast<std::size_t>(j.dof_address) + k];
  }
  return value_of(rise) > 0.0 ? height + rise * rise / (2.0 * g) : height;
}

// One world's state terms at step t of a rollout of `steps` steps.
template <class S>
S state_cost(const RigidModel& m, const RigidLossSettings& s, int t, int steps, const S* qpos, const S* qvel,
             RigidWorkspace<S>& w) {
  S cost(0.0);
  const bool last = t == steps, first = t == 0;
  if (!first && !last) return cost;  // only a controller's effort, charged by the caller
  if (s.reach_body >= 0 || s.progress_body >= 0) forward_kinematics(m, qpos, w);
  if (last && s.reach_body >= 0) {
    const Vec3<S> gap = world_point(w, s.reach_body, s.reach_point) - s.reach_target;
    cost = cost + s.reach_weight * dot(gap, gap);
  }
  if (s.progress_body >= 0) {
    const S along = dot(w.xpos[static_cast<std::size_t>(s.progress_body)], s.progress_direction);
    cost = cost + (last ? -s.progress_weight : s.progress_weight) * along;
  }
  if (last && s.apex_joint >= 0) cost = cost - s.apex_weight * apex_height(m, s.apex_joint, qpos, qvel);
  if (last) {
    for (std::size_t i = 0; i < s.qpos_target.size(); ++i) {
      const S e = qpos[i] - s.qpos_target[i];
      cost = cost + s.qpos_weight[i] * e * e;
    }
    for (std::size_t i = 0; i < s.qvel_target.size(); ++i) {
      const S e = qvel[i] - s.qvel_target[i];
      cost = cost + s.qvel_weight[i] * e * e;
    }
  }
  return cost;
}

}  // namespace

RigidLoss::RigidLoss(RigidModel& model, RigidLossSettings settings)
    : model_(model), tree_(model), settings_(std::move(settings)) {}

void RigidLoss::set_controller(control::Controller* controller) {
  controller_ = controller;
  signals_.assign(static_cast<std::size_t>(model_.worlds) * static_cast<std::size_t>(model_.nu()), 0.0);
  signal_adjoints_.assign(signals_.size(), 0.0);
}

bool RigidLoss::has_term(int t, int steps) const {
  const bool charged_by_step = controller_ != nullptr && settings_.effort_weight != 0.0 && t < steps;
  return t == steps || (t == 0 && settings_.progress_body >= 0) || charged_by_step;
}

double RigidLoss::effort_scale() const {
  return model_.steps == 0 ? 0.0 : settings_.effort_weight / (static_cast<double>(model_.steps) * model_.worlds);
}

double RigidLoss::effort() const {
  if (controller_ != nullptr) return 0.0;
  double sum = 0.0;
  for (const double u : model_.controls.values()) sum += u * u;
  return effort_scale() * sum;
}

double RigidLoss::term(int t, std::span<const double> state) {
  thread_local RigidWorkspace<double> w;
  w.resize(tree_);
  const auto n = static_cast<std::size_t>(model_.state_size());
  double sum = 0.0;
  for (std::size_t k = 0; k < static_cast<std::size_t>(model_.worlds); ++k) {
    const double* s = state.data() + k * n;
    sum += state_cost(model_, settings_, t, model_.steps, s, s + model_.nq, w);
  }
  double effort_now = t == model_.steps ? effort() : 0.0;
  if (controller_ != nullptr && t < model_.steps && settings_.effort_weight != 0.0) {
    controller_->signals(t, state, signals_);
    for (const double u : signals_) effort_now += effort_scale() * u * u;
  }
  return sum / model_.worlds + effort_now;
}

void RigidLoss::term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  thread_local RigidWorkspace<ad::Var> w;
  thread_local std::vector<ad::Var> x;
  w.resize(tree_);
  const auto n = static_cast<std::size_t>(model_.state_size());
  x.resize(n);
  ad::LocalTape& tape = ad::thread_tape();
  for (std::size_t k = 0; k < static_cast<std::size_t>(model_.worlds); ++k) {
    tape.reset();
    const double* s = state.data() + k * n;
    for (std::size_t i = 0; i < n; ++i) x[i] = ad::Var::input(s[i]);
    const ad::Var cost = state_cost(model_, settings_, t, model_.steps, x.data(), x.data() + model_.nq, w);
    if (cost.i == 0) continue;  // a constant: no state enters this term
    tape.clear_adjoints();
    tape.adjoint(cost.i) = seed / model_.worlds;
    tape.sweep();
    for (std::size_t i = 0; i < n; ++i) state_adjoint[k * n + i] += tape.adjoint(x[i].i);
  }
  if (controller_ != nullptr && t < model_.steps && settings_.effort_weight != 0.0) {
    controller_->signals(t, state, signals_);
    for (std::size_t i = 0; i < signals_.size(); ++i) signal_adjoints_[i] = seed * effort_scale() * 2.0 * signals_[i];
    controller_->signals_adjoint(t, state, signal_adjoints_, state_adjoint);
  } else if (controller_ == nullptr && t == model_.steps && settings_.effort_weight != 0.0 && model_.controls.differentiable()) {
    const double scale = seed * effort_scale() * 2.0;
    const auto u = model_.controls.values();
    const auto a = model_.controls.adjoints();
    for (std::size_t i = 0; i < u.size(); ++i) a[i] += scale * u[i];
  }
}

double RigidLoss::apex(std::span<const double> state, int world) const {
  const double* s = state.data() + static_cast<std::size_t>(world) * static_cast<std::size_t>(model_.state_size());
  return apex_height(model_, settings_.apex_joint, s, s + model_.nq);
}

Vec3<double> RigidLoss::point_position(std::span<const double> state, int world, int body, const Vec3<double>& point) const {
  thread_local RigidWorkspace<double> w;
  w.resize(tree_);
  forward_kinematics(model_, state.data() + static_cast<std::size_t>(world) * static_cast<std::size_t>(model_.state_size()), w);
  return world_point(w, body, point);
}

}  // namespace simgrad::rigid
