// Tasks as losses over a creature's (or a batch's) trajectory, each the mean over creatures of
// one term at the last step, each a kernel over creatures so its gradient is derived:
//   walk        -x of the head node (DiffTaichi's loss), or of the centre of mass
//   jump        -the peak centre height: smax(running peak, final centre height)
//   reach       |head - target|^2
//   carry       -x of the centre of the block's nodes
#pragma once

#include <cstdint>

#include "core/kernel.hpp"
#include "sims/creature/creature.hpp"

namespace simgrad::creature {

enum class Task { kWalkHead, kWalkCentre, kJump, kReach, kCarry };

class TaskLoss final : public TrajectoryLoss {
 public:
  // head: the node, within one creature, that walking by head and reaching measure; block: the
  // nodes, within one creature, that carrying measures.
  TaskLoss(Creature& creature, Task task, std::int32_t head, Vec<double, 2> target = Vec<double, 2>::zero(),
           const std::vector<std::int32_t>& block = {});

  bool has_term(int t, int steps) const override { return t == steps; }
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;

  Task task() const { return task_; }
  // The task's figure per creature in a state (distance walked is the x reached, height the peak).
  double figure(std::span<const double> state, int c) const;

 private:
  struct Body;
  Body body(std::span<const double> state, double* adjoint) const;

  Creature& creature_;
  Task task_;
  Vec<double, 2> target_;
  Incidence nodes_;  // per creature: the head alone, the block's nodes, or all its nodes
  Kernel kernel_;
};

}  // namespace simgrad::creature
