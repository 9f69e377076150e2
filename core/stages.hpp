// A step's stages written once, as a table that both passes walk. Each stage names its forward,
// its adjoint and when the adjoint pass must replay its forward (an intermediate the adjoint of
// a later stage reads, unless the rollout kept it in the step's residual). The forward pass runs
// the forwards in table order; the adjoint pass replays, in table order, the forwards it needs,
// then runs the adjoints in reverse order. So the order of a step is written in one place, and
// the adjoint cannot walk it differently from the forward.
#pragma once

#include <array>
#include <cstddef>

namespace simgrad {

// One stage of a system `Owner` whose step's fields (state, next state, intermediates, with or
// without adjoints) are a `Fields`. `replayed` null: the adjoint never replays it.
template <class Owner, class Fields>
struct Stage {
  const char* name;
  void (Owner::*forward)(const Fields&);
  void (Owner::*adjoint)(const Fields&);
  bool (Owner::*replayed)(const Fields&) const = nullptr;
};

// The forward pass: every stage's forward, in order.
template <class Owner, class Fields, std::size_t N>
void walk_forward(Owner& owner, const std::array<Stage<Owner, Fields>, N>& stages, const Fields& fields) {
  for (const Stage<Owner, Fields>& s : stages) (owner.*s.forward)(fields);
}

// The adjoint pass: the replayed forwards in order, then every stage's adjoint in reverse.
template <class Owner, class Fields, std::size_t N>
void walk_adjoint(Owner& owner, const std::array<Stage<Owner, Fields>, N>& stages, const Fields& fields) {
  for (const Stage<Owner, Fields>& s : stages)
    if (s.replayed != nullptr && (owner.*s.replayed)(fields)) (owner.*s.forward)(fields);
  for (std::size_t k = N; k-- > 0;) (owner.*stages[k].adjoint)(fields);
}

}  // namespace simgrad
