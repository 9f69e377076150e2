// Incidence: which nodes each element of a kernel touches, and its transpose.
//
// simgrad never scatters with floating-point atomics: every node sums what its incident (element,
// slot) pairs contribute in ascending slot order, the order of the precomputed transpose, so
// sums are the same bits for any number of threads. Kernels (kernel.hpp) do this through a
// Partition; gather_slots below is the plain form for per-slot outputs.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "core/field.hpp"
#include "core/lanes.hpp"
#include "core/slot_entries.hpp"

namespace simgrad {

// Elements split into contiguous runs of whole blocks, one run per thread ("part"). A node is
// private to a part when every slot that touches it belongs to that part's elements, and shared
// otherwise. A node's first part (the lowest that touches it) adds to it directly, in element
// order, as the only part of a private node does: its slots come first in slot order anyway. The
// later parts' contributions to a shared node go through per-(element, slot) entries, added to
// the node afterwards in slot order. Every node thus receives its contributions in ascending slot
// order, for any number of parts.
struct Partition {
  int parts = 1;
  std::vector<Index> first_block;          // part p covers blocks [first_block[p], first_block[p + 1])
  std::vector<std::uint16_t> first_part;   // per node: the lowest part whose elements touch it
  std::vector<std::int32_t> shared_nodes;  // the shared nodes, ascending
  std::vector<std::int32_t> first_entry;   // per shared node: where in slots_of(n) its entries start
  // Per block: whether one of its elements touches a node whose first part is an earlier one. A
  // block that touches none runs as with one part (straight to the nodes, no checks): the same
  // additions in the same order, so the same bits, at the cost of a plain loop.
  std::vector<std::uint8_t> block_shared;

  // Whether part `part`'s contributions to node n go through entries.
  bool through_entries(Index n, int part) const { return part > first_part[static_cast<std::size_t>(n)]; }
};

class Incidence {
 public:
  Incidence() = default;
  // `nodes` lists, element by element, the `arity` nodes each element touches.
  Incidence(int arity, std::vector<std::int32_t> nodes, Index node_count);

  int arity() const { return arity_; }
  Index elements() const { return elements_; }
  Index nodes() const { return node_count_; }
  // The node at slot s of element e.
  Index node(Index e, int s) const { return nodes_[e * arity_ + s]; }
  // The slots (e * arity + s) that touch node n, in ascending order.
  std::span<const std::int32_t> slots_of(Index n) const {
    return {slots_.data() + offsets_[n], slots_.data() + offsets_[n + 1]};
  }
  // The incidence as plain arrays, for code that cannot take this class (a device's).
  SlotIncidence arrays() const {
    return {nodes_.data(), offsets_.data(), slots_.data(), arity_, elements_, node_count_};
  }
  // Whether the group of kLaneCount elements that starts at `first` (a multiple of kLaneCount)
  // has a node in different slots of two of its elements: such a group does not run in lanes
  // (lanes.hpp).
  bool group_crosses_slots(Index first) const { return lane_group_crosses_[first / kLaneCount] != 0; }
  // The split of the elements into `parts` parts (computed once per part count; not to be called
  // from inside a parallel region).
  const Partition& partition(int parts) const;

 private:
  int arity_ = 0;
  Index elements_ = 0;
  Index node_count_ = 0;
  std::vector<std::int32_t> nodes_;
  std::vector<std::int32_t> offsets_;
  std::vector<std::int32_t> slots_;
  std::vector<std::uint8_t> lane_group_crosses_;  // per whole group of kLaneCount elements
  mutable std::deque<Partition> partitions_;  // a deque: references stay valid as it grows
};

// node[n] (+)= sum of slot_values over the slots touching n, dim doubles per entry, in slot order.
void sum_slots_to_nodes(const Incidence& incidence, const double* slot_values, double* node_values,
                        int dim, bool accumulate);

// slot_adjoint[k] += node_adjoint[node of k]: the adjoint of sum_slots_to_nodes.
void spread_nodes_to_slots(const Incidence& incidence, const double* node_adjoint,
                           double* slot_adjoint, int dim);

// Sums per-(element, slot) values into nodes: the deterministic replacement for a scatter-add.
template <int D>
void gather_slots(const Incidence& incidence, const Field<D>& slot_values, const Field<D>& nodes) {
  sum_slots_to_nodes(incidence, slot_values.value, nodes.value, D, /*accumulate=*/false);
}

// The adjoint of gather_slots: every slot receives its node's adjoint.
template <int D>
void gather_slots_adjoint(const Incidence& incidence, const Field<D>& slot_values,
                          const Field<D>& nodes) {
  if (slot_values.adjoint != nullptr && nodes.adjoint != nullptr)
    spread_nodes_to_slots(incidence, nodes.adjoint, slot_values.adjoint, D);
}

}  // namespace simgrad
