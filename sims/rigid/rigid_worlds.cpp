#include "sims/rigid/rigid_worlds.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/diagnostics.hpp"
#include "core/local_ad.hpp"
#include "core/parallel.hpp"
#include "sims/rigid/step.hpp"

namespace simgrad::rigid {

namespace {

// Number of tunable constants a step reads.
std::size_t constant_count(RigidModel& m) {
  std::size_t n = 0;
  for (const Array<1>* a : m.constant_arrays()) n += static_cast<std::size_t>(a->size());
  return n;
}

}  // namespace

RigidWorlds::RigidWorlds(RigidModel& model)
    : model_(model), tree_(model), zero_controls_(static_cast<std::size_t>(model.nu()), 0.0) {
  constants_.resize(model);
  if (!model.soft_nodes.empty() &&
      (model.settings.integrator != Integrator::kEuler || model.settings.contact.model != ContactModel::kPenalty))
    throw std::invalid_argument("rigid worlds: soft parts move with the Euler integrator and penalty contact only");
}

void RigidWorlds::set_controller(control::Controller* controller) {
  if (controller != nullptr && (controller->layout().creatures != model_.worlds || controller->layout().actuators() != model_.nu()))
    throw std::invalid_argument("rigid worlds: the controller drives " + std::to_string(controller->layout().creatures) +
                                " worlds of " + std::to_string(controller->layout().actuators()) + " actuators; the model has " +
                                std::to_string(model_.worlds) + " of " + std::to_string(model_.nu()));
  controller_ = controller;
  signals_.assign(static_cast<std::size_t>(model_.worlds) * static_cast<std::size_t>(model_.nu()), 0.0);
  signal_adjoints_.assign(signals_.size(), 0.0);
}

void RigidWorlds::update_signals(int t, std::span<const double> state) {
  if (controller_ != nullptr) controller_->signals(t, state, signals_);
}

const double* RigidWorlds::controls(int t, int w) const {
  if (controller_ != nullptr) return signals_.data() + static_cast<std::size_t>(w) * static_cast<std::size_t>(model_.nu());
  if (model_.steps == 0) return zero_controls_.data();
  const int row = std::min(t, model_.steps - 1);
  return model_.controls.values().data() + (static_cast<std::size_t>(row) * model_.worlds + static_cast<std::size_t>(w)) * static_cast<std::size_t>(model_.nu());
}

void RigidWorlds::initial_state(std::span<double> state) {
  const auto nq = static_cast<std::size_t>(model_.nq), nv = static_cast<std::size_t>(model_.nv);
  const auto n = static_cast<std::size_t>(world_state_size());
  RigidWorkspace<double> frames;  // for the soft nodes' start
  if (!model_.soft_nodes.empty()) {
    frames.resize(tree_);
    read_constants(model_, constants_);
  }
  for (std::size_t w = 0; w < static_cast<std::size_t>(model_.worlds); ++w) {
    double* s = state.data() + w * n;
    std::copy_n(model_.initial_qpos.values().data() + w * nq, nq, s);
    std::copy_n(model_.initial_qvel.values().data() + w * nv, nv, s + nq);
    if (model_.soft_nodes.empty()) continue;
    // Each soft node starts at its point of its body, moving with it.
    forward_kinematics(model_, s, frames);
    inertias_and_axes(model_, constants_, frames);
    body_velocities(model_, tree_, s + nq, frames);
    const std::size_t nodes = model_.soft_nodes.size();
    for (std::size_t i = 0; i < nodes; ++i) {
      const SoftNode& node = model_.soft_nodes[i];
      const Vec3<double> p = world_point(frames, node.body, node.point);
      const Vec3<double> v = point_velocity(frames, node.body, p);
      for (std::size_t k = 0; k < 3; ++k) {
        s[nq + nv + 3 * i + k] = p.c[k];
        s[nq + nv + 3 * (nodes + i) + k] = v.c[k];
      }
    }
  }
}

void RigidWorlds::initial_state_adjoint(std::span<const double> state_adjoint) {
  const auto nq = static_cast<std::size_t>(model_.nq), nv = static_cast<std::size_t>(model_.nv);
  const auto n = static_cast<std::size_t>(world_state_size());
  if (!model_.soft_nodes.empty() && (model_.initial_qpos.differentiable() || model_.initial_qvel.differentiable()))
    throw std::invalid_argument("rigid worlds: the start of a machine with soft parts cannot be tuned yet (its nodes' start "
                                "follows the bodies', a dependence the gradient does not carry)");
  for (std::size_t w = 0; w < static_cast<std::size_t>(model_.worlds); ++w) {
    const double* a = state_adjoint.data() + w * n;
    if (model_.initial_qpos.differentiable())
      for (std::size_t i = 0; i < nq; ++i) model_.initial_qpos.adjoints()[w * nq + i] += a[i];
    if (model_.initial_qvel.differentiable())
      for (std::size_t i = 0; i < nv; ++i) model_.initial_qvel.adjoints()[w * nv + i] += a[nq + i];
  }
}

void RigidWorlds::check(int t, std::span<const double> next, const std::vector<int>& singular) const {
  for (int w = 0; w < model_.worlds; ++w)
    if (singular[static_cast<std::size_t>(w)])
      throw std::runtime_error("rigid step " + std::to_string(t) + ", world " + std::to_string(w) +
                               ": the mass matrix is not positive definite (a moving body without mass or inertia)");
  const auto n = static_cast<std::size_t>(world_state_size());
  for (int w = 0; w < model_.worlds; ++w)
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isfinite(next[static_cast<std::size_t>(w) * n + i])) throw NonFiniteError("rigid_step", w, false, t);
}

void RigidWorlds::step(int t, std::span<const double> state, std::span<double> next, std::span<double>) {
  read_constants(model_, constants_);
  update_signals(t, state);
  singular_.assign(static_cast<std::size_t>(model_.worlds), 0);
  const auto n = static_cast<std::size_t>(world_state_size());
  parallel_for_blocks(model_.worlds, [&](Index first, Index last) {
    thread_local RigidWorkspace<double> workspace;
    workspace.resize(tree_);
    for (Index w = first; w < last; ++w) {
      const auto uw = static_cast<std::size_t>(w);
      singular_[uw] = !rigid_step(model_, tree_, constants_, state.data() + uw * n, controls(t, static_cast<int>(w)),
                                  next.data() + uw * n, workspace);
    }
  });
  check(t, next, singular_);
}

void RigidWorlds::step_adjoint(int t, std::span<const double> state, std::span<const double>,
                               std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  const std::size_t n = static_cast<std::size_t>(world_state_size()), nu = static_cast<std::size_t>(model_.nu());
  const std::size_t k = constant_count(model_);
  constant_adjoints_.assign(static_cast<std::size_t>(model_.worlds) * k, 0.0);
  update_signals(t, state);
  const bool control_adjoints = controller_ == nullptr && model_.controls.differentiable() && nu > 0 && model_.steps > 0;
  parallel_for_blocks(model_.worlds, [&](Index first, Index last) {
    thread_local RigidWorkspace<ad::Var> workspace;
    thread_local RigidConstants<ad::Var> constants;
    thread_local std::vector<ad::Var> in, ctrl, out;
    workspace.resize(tree_);
    constants.resize(model_);
    in.resize(n);
    out.resize(n);
    ctrl.resize(nu);
    ad::LocalTape& tape = ad::thread_tape();
    for (Index w = first; w < last; ++w) {
      const auto uw = static_cast<std::size_t>(w);
      tape.reset();
      const double* x = state.data() + uw * n;
      for (std::size_t i = 0; i < n; ++i) in[i] = ad::Var::input(x[i]);
      const double* u = controls(t, static_cast<int>(w));
      for (std::size_t i = 0; i < nu; ++i) ctrl[i] = ad::Var::input(u[i]);
      read_constants(model_, constants);
      rigid_step(model_, tree_, constants, in.data(), nu > 0 ? ctrl.data() : nullptr, out.data(), workspace);
      tape.clear_adjoints();
      const double* seed = next_adjoint.data() + uw * n;
      for (std::size_t i = 0; i < n; ++i) tape.adjoint(out[i].i) += seed[i];
      tape.sweep();
      double* a = state_adjoint.data() + uw * n;
      for (std::size_t i = 0; i < n; ++i) a[i] += tape.adjoint(in[i].i);
      if (controller_ != nullptr) {
        for (std::size_t i = 0; i < nu; ++i) signal_adjoints_[uw * nu + i] = tape.adjoint(ctrl[i].i);
      } else if (control_adjoints) {
        const std::size_t row = static_cast<std::size_t>(std::min(t, model_.steps - 1));
        double* ca = model_.controls.adjoints().data() + (row * static_cast<std::size_t>(model_.worlds) + uw) * nu;
        for (std::size_t i = 0; i < nu; ++i) ca[i] += tape.adjoint(ctrl[i].i);
      }
      double* partial = constant_adjoints_.data() + uw * k;
      for (const std::vector<ad::Var>* values : constants.arrays())
        for (const ad::Var& v : *values) *partial++ = tape.adjoint(v.i);
    }
  });
  // Constants: summed over worlds in world order.
  std::size_t offset = 0;
  for (Array<1>* array : model_.constant_arrays()) {
    const auto size = static_cast<std::size_t>(array->size());
    if (array->differentiable())
      for (std::size_t w = 0; w < static_cast<std::size_t>(model_.worlds); ++w)
        for (std::size_t i = 0; i < size; ++i) array->adjoints()[i] += constant_adjoints_[w * k + offset + i];
    offset += size;
  }
  if (controller_ != nullptr) controller_->signals_adjoint(t, state, signal_adjoints_, state_adjoint);
  check_finite(state_adjoint, "rigid_step", true);
}

void RigidWorlds::clear_adjoints() {
  for (Array<1>* a : model_.tunable_arrays()) std::fill(a->adjoints().begin(), a->adjoints().end(), 0.0);
  if (controller_ != nullptr) controller_->clear_adjoints();
}

}  // namespace simgrad::rigid
