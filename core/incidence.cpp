#include "core/incidence.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "core/kernel.hpp"
#include "core/parallel.hpp"

namespace simgrad {

Incidence::Incidence(int arity, std::vector<std::int32_t> nodes, Index node_count)
    : arity_(arity), node_count_(node_count), nodes_(std::move(nodes)) {
  if (arity <= 0 || nodes_.size() % static_cast<std::size_t>(arity) != 0)
    throw std::invalid_argument("incidence: node list is not a multiple of the arity");
  elements_ = static_cast<Index>(nodes_.size()) / arity;
  // Counting sort by node keeps each node's slots in ascending order: a fixed summation order.
  offsets_.assign(static_cast<std::size_t>(node_count + 1), 0);
  for (std::int32_t n : nodes_) {
    if (n < 0 || n >= node_count)
      throw std::out_of_range("incidence: node index " + std::to_string(n) + " outside [0, " +
                              std::to_string(node_count) + ")");
    ++offsets_[n + 1];
  }
  for (Index n = 0; n < node_count; ++n) offsets_[n + 1] += offsets_[n];
  slots_.resize(nodes_.size());
  std::vector<std::int32_t> next(offsets_.begin(), offsets_.end() - 1);
  for (std::size_t k = 0; k < nodes_.size(); ++k) slots_[next[nodes_[k]]++] = static_cast<std::int32_t>(k);

  lane_group_crosses_.assign(static_cast<std::size_t>(elements_ / kLaneCount), 0);
  for (Index g = 0; g < elements_ / kLaneCount; ++g)
    for (Index a = g * kLaneCount; a < (g + 1) * kLaneCount; ++a)
      for (Index b = a + 1; b < (g + 1) * kLaneCount; ++b)
        for (int s = 0; s < arity_; ++s)
          for (int t = 0; t < arity_; ++t)
            if (s != t && node(a, s) == node(b, t)) lane_group_crosses_[static_cast<std::size_t>(g)] = 1;
}

const Partition& Incidence::partition(int parts) const {
  for (const Partition& p : partitions_)
    if (p.parts == parts) return p;
  Partition p;
  p.parts = parts;
  const Index blocks = block_count(elements_);
  for (int k = 0; k <= parts; ++k) p.first_block.push_back(blocks * k / parts);
  // The part of element e: the last part whose first block is at or before e's block.
  auto part_of = [&](Index e) {
    const Index b = e / kBlockSize;
    return std::upper_bound(p.first_block.begin() + 1, p.first_block.end() - 1, b) - (p.first_block.begin() + 1);
  };
  if (parts > 65535) throw std::invalid_argument("partition: at most 65,535 parts");
  p.first_part.assign(static_cast<std::size_t>(node_count_), 0);
  for (Index n = 0; n < node_count_; ++n) {
    const auto slots = slots_of(n);
    if (slots.empty()) continue;
    const auto first = part_of(slots.front() / arity_);
    p.first_part[static_cast<std::size_t>(n)] = static_cast<std::uint16_t>(first);
    if (first == part_of(slots.back() / arity_)) continue;
    p.shared_nodes.push_back(static_cast<std::int32_t>(n));
    std::int32_t k = 0;
    while (part_of(slots[static_cast<std::size_t>(k)] / arity_) == first) ++k;
    p.first_entry.push_back(k);
  }
  p.block_shared.assign(static_cast<std::size_t>(blocks), 0);
  for (Index e = 0; e < (parts > 1 ? elements_ : 0); ++e)
    for (int s = 0; s < arity_; ++s)
      if (p.through_entries(node(e, s), static_cast<int>(part_of(e)))) p.block_shared[e / kBlockSize] = 1;
  partitions_.push_back(std::move(p));
  return partitions_.back();
}

void sum_slots_to_nodes(const Incidence& incidence, const double* slot_values, double* node_values,
                        int dim, bool accumulate) {
  parallel_for_blocks(incidence.nodes(), [&](Index first, Index last) {
    for (Index n = first; n < last; ++n) {
      for (int c = 0; c < dim; ++c) {
        double sum = accumulate ? node_values[n * dim + c] : 0.0;
        for (std::int32_t k : incidence.slots_of(n)) sum += slot_values[static_cast<Index>(k) * dim + c];
        node_values[n * dim + c] = sum;
      }
    }
  });
}

namespace detail {

bool all_finite(const double* values, Index n) {
  std::atomic<bool> finite = true;
  parallel_for_blocks(n, [&](Index first, Index last) {
    // Summing x * 0 turns any inf or NaN into NaN, and is branch-free; four independent sums
    // keep the adds from waiting on each other.
    double poison[4] = {0.0, 0.0, 0.0, 0.0};
    Index i = first;
    for (; i + 4 <= last; i += 4)
      for (int k = 0; k < 4; ++k) poison[k] += values[i + k] * 0.0;
    for (; i < last; ++i) poison[0] += values[i] * 0.0;
    if (poison[0] + poison[1] + poison[2] + poison[3] != 0.0) finite = false;
  });
  return finite;
}

void sum_shared_entries(const Incidence& incidence, const Partition& partition, std::vector<SlotBuffer>& buffers) {
  const std::vector<std::int32_t>& nodes = partition.shared_nodes;
  parallel_for_blocks(static_cast<Index>(nodes.size()), [&](Index first, Index last) {
    for (SlotBuffer& b : buffers) {
      const int dim = b.dim;
      for (Index i = first; i < last; ++i) {
        const Index n = nodes[static_cast<std::size_t>(i)];
        // The node holds what it had and its first part's contributions; the later parts' follow.
        const auto later = incidence.slots_of(n).subspan(static_cast<std::size_t>(partition.first_entry[static_cast<std::size_t>(i)]));
        double* node = b.node_field + n * dim;
        double sum[16];
        for (int c = 0; c < dim; ++c) sum[c] = node[c];
        for (std::int32_t k : later) {
          const double* entry = b.slots.data() + static_cast<Index>(k) * dim;
          for (int c = 0; c < dim; ++c) sum[c] += entry[c];
        }
        for (int c = 0; c < dim; ++c) node[c] = sum[c];
      }
    }
  });
}

}  // namespace detail

void spread_nodes_to_slots(const Incidence& incidence, const double* node_adjoint,
                           double* slot_adjoint, int dim) {
  const int arity = incidence.arity();
  parallel_for_blocks(incidence.elements(), [&](Index first, Index last) {
    for (Index e = first; e < last; ++e)
      for (int s = 0; s < arity; ++s) {
        const Index n = incidence.node(e, s);
        for (int c = 0; c < dim; ++c) slot_adjoint[(e * arity + s) * dim + c] += node_adjoint[n * dim + c];
      }
  });
}

}  // namespace simgrad
