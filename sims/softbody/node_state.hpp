// The state of a body of nodes, [positions (n x D), velocities (n x D)], shared by the
// mass-spring and FEM systems: its fields, its initial value and the adjoint of that value.
#pragma once

#include <algorithm>
#include <span>

#include "core/field.hpp"

namespace simgrad::softbody {

// The positions of a state as a field over n nodes (adjoint may be null).
template <int D>
Field<D> state_positions(std::span<const double> state, double* adjoint, Index n) {
  return {const_cast<double*>(state.data()), adjoint, n};
}

// The velocities of a state as a field over n nodes (adjoint may be null).
template <int D>
Field<D> state_velocities(std::span<const double> state, double* adjoint, Index n) {
  const Index offset = D * n;
  return {const_cast<double*>(state.data()) + offset, adjoint ? adjoint + offset : nullptr, n};
}

// Writes the initial positions and velocities into a state.
template <int D>
void write_initial_state(const Array<D>& position, const Array<D>& velocity, std::span<double> state) {
  const auto x0 = position.values();
  const auto v0 = velocity.values();
  std::copy(x0.begin(), x0.end(), state.begin());
  std::copy(v0.begin(), v0.end(), state.begin() + static_cast<Index>(x0.size()));
}

// Adds a state's adjoint to the adjoints of the initial positions and velocities that are
// differentiated.
template <int D>
void add_initial_state_adjoint(Array<D>& position, Array<D>& velocity, std::span<const double> state_adjoint) {
  const Index n = static_cast<Index>(position.values().size());
  auto accumulate = [&](Array<D>& parameter, Index offset) {
    if (!parameter.differentiable()) return;
    auto adj = parameter.adjoints();
    for (Index i = 0; i < n; ++i) adj[i] += state_adjoint[offset + i];
  };
  accumulate(position, 0);
  accumulate(velocity, n);
}

}  // namespace simgrad::softbody
