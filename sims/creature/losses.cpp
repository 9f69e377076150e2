#include "sims/creature/losses.hpp"

#include <array>
#include <stdexcept>

#include "core/relax.hpp"

namespace simgrad::creature {

namespace {

// Per creature, the head node alone, the block's nodes or all its nodes.
Incidence measured_nodes(const Creature& creature, Task task, std::int32_t head, const std::vector<std::int32_t>& block) {
  const int n = creature.nodes();
  std::vector<std::int32_t> own{head};
  if (task == Task::kCarry) own = block;
  if (task == Task::kWalkCentre || task == Task::kJump) {
    own.clear();
    for (int j = 0; j < n; ++j) own.push_back(j);
  }
  if (own.empty()) throw std::invalid_argument("creature task: carrying needs the block's nodes");
  std::vector<std::int32_t> nodes;
  for (int c = 0; c < creature.creatures(); ++c)
    for (std::int32_t j : own) nodes.push_back(c * n + j);
  return Incidence(static_cast<int>(own.size()), std::move(nodes), static_cast<Index>(creature.creatures()) * n);
}

}  // namespace

struct TaskLoss::Body {
  Field<2> x;
  Field<1> peak;  // per creature
  Task task;
  Vec<double, 2> target;
  double weight;       // 1 / creatures
  double temperature;  // of the peak's smooth maximum

  std::array<FieldRef, 1> gathered() const { return {x}; }
  template <class E>
  typename E::Scalar operator()(E& e) const {
    using S = typename E::Scalar;
    if (task == Task::kWalkHead) return -weight * e.slot(x, 0)[0];
    if (task == Task::kReach) {
      const Vec<S, 2> d = e.slot(x, 0) - target;
      return weight * dot(d, d);
    }
    Vec<S, 2> centre = e.slot(x, 0);
    for (int s = 1; s < e.arity(); ++s) centre += e.slot(x, s);
    centre = (1.0 / e.arity()) * centre;
    if (task == Task::kWalkCentre || task == Task::kCarry) return -weight * centre[0];
    const std::array<S, 2> pair{e.own(peak), centre[1]};
    return -weight * relax::logsumexp_max(std::span<const S>(pair), temperature);
  }
};

TaskLoss::TaskLoss(Creature& creature, Task task, std::int32_t head, Vec<double, 2> target,
                   const std::vector<std::int32_t>& block)
    : creature_(creature),
      task_(task),
      target_(target),
      nodes_(measured_nodes(creature, task, head, block)),
      kernel_("creature_task_loss", &nodes_) {}

TaskLoss::Body TaskLoss::body(std::span<const double> state, double* adjoint) const {
  const Index body = creature_.body_size();
  Field<2> x{const_cast<double*>(state.data()), adjoint, nodes_.nodes()};
  Field<1> peak{const_cast<double*>(state.data()) + body, adjoint ? adjoint + body : nullptr, creature_.creatures()};
  return {x, peak, task_, target_, 1.0 / creature_.creatures(), creature_.peak_temperature};
}

double TaskLoss::term(int, std::span<const double> state) { return kernel_.sum(body(state, nullptr)); }

void TaskLoss::term_adjoint(int, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  kernel_.sum_adjoint(body(state, state_adjoint.data()), seed);
}

double TaskLoss::figure(std::span<const double> state, int c) const {
  const int n = creature_.nodes();
  auto at = [&](std::int32_t node, int k) { return state[static_cast<std::size_t>((c * n + node) * 2 + k)]; };
  const std::int32_t head = nodes_.node(c, 0) - c * n;
  switch (task_) {
    case Task::kWalkHead: return at(head, 0);
    case Task::kReach: {
      const double dx = at(head, 0) - target_[0], dy = at(head, 1) - target_[1];
      return std::sqrt(dx * dx + dy * dy);
    }
    case Task::kWalkCentre:
    case Task::kCarry: {
      double s = 0.0;
      for (int k = 0; k < nodes_.arity(); ++k) s += at(nodes_.node(c, k) - c * n, 0);
      return s / nodes_.arity();
    }
    case Task::kJump: {
      const std::array<double, 2> pair{state[static_cast<std::size_t>(creature_.body_size() + c)],
                                       creature_.centre_height(state, c)};
      return relax::logsumexp_max(std::span<const double>(pair), creature_.peak_temperature);
    }
  }
  return 0.0;
}

}  // namespace simgrad::creature
