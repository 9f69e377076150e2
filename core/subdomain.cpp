#include "core/subdomain.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/parallel.hpp"

namespace simgrad {

Index group_blocks(Index total) { return std::max<Index>(1, (block_count(total) + kMaxGroups - 1) / kMaxGroups); }

Index group_count(Index total) {
  const Index per_group = group_blocks(total);
  return (block_count(total) + per_group - 1) / per_group;
}

ElementRun partition_run(Index total, int processes, int process) {
  const Index groups = group_count(total);
  if (processes > groups)
    throw std::invalid_argument("cannot split " + std::to_string(total) + " elements over " + std::to_string(processes) +
                                " processes: they make " + std::to_string(groups) + " group" + (groups == 1 ? "" : "s") +
                                " of " + std::to_string(group_blocks(total) * kBlockSize) +
                                " (a process holds whole groups); use at most " + std::to_string(groups) + " processes");
  const Index share = groups / processes, extra = groups % processes;
  const Index g0 = process * share + std::min<Index>(process, extra);
  const Index g1 = g0 + share + (process < extra ? 1 : 0);
  const Index group_size = group_blocks(total) * kBlockSize;
  return {std::min(total, g0 * group_size), std::min(total, g1 * group_size)};
}

std::size_t pack_ghost_values(std::span<const double> values, std::span<double> message) {
  // Bits, not values: -0.0 is sent, and comes back as -0.0.
  auto is_plus_zero = [](double v) { return std::bit_cast<std::uint64_t>(v) == 0; };
  std::size_t non_zero = 0;
  for (const double v : values) non_zero += !is_plus_zero(v);
  if (2 * non_zero >= values.size()) {
    std::copy(values.begin(), values.end(), message.begin());
    return values.size();
  }
  std::size_t at = 0;
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!is_plus_zero(values[k])) {
      message[at++] = static_cast<double>(k);  // exact below 2^53
      message[at++] = values[k];
    }
  return at;
}

void unpack_ghost_values(std::span<const double> message, std::span<double> values) {
  if (message.size() == values.size()) {
    std::copy(message.begin(), message.end(), values.begin());
    return;
  }
  std::fill(values.begin(), values.end(), 0.0);
  for (std::size_t at = 0; at + 1 < message.size(); at += 2) values[static_cast<std::size_t>(message[at])] = message[at + 1];
}

BlockRows::BlockRows(const Subdomain& subdomain, Index width)
    : subdomain_(subdomain),
      width_(width),
      own_blocks_(block_count(subdomain.owned())),
      blocks_(block_count(subdomain.total())) {
  const Index per_group = group_blocks(subdomain.total());
  if (subdomain.first() % (per_group * kBlockSize) != 0)
    throw std::invalid_argument("a process's elements must start at a group's first element");
  const Index own_groups = (own_blocks_ + per_group - 1) / per_group;
  mine_.assign(static_cast<std::size_t>(own_groups * per_group * width), 0.0);
  all_.assign(static_cast<std::size_t>(group_count(subdomain.total()) * per_group * width), 0.0);
}

void BlockRows::gather() { subdomain_.gather_groups(mine_, all_, group_blocks(subdomain_.total()) * width_); }

BlockSums::BlockSums(Index elements, Index width, const Subdomain* subdomain)
    : width_(width),
      blocks_per_group_(group_blocks(subdomain ? subdomain->total() : elements)),
      groups_(group_count(subdomain ? subdomain->total() : elements)),
      local_groups_((block_count(elements) + blocks_per_group_ - 1) / blocks_per_group_),
      subdomain_(subdomain),
      blocks_(static_cast<std::size_t>(block_count(elements) * width), 0.0),
      mine_(static_cast<std::size_t>(local_groups_ * width), 0.0),
      all_(static_cast<std::size_t>(groups_ * width), 0.0) {
  if (subdomain && subdomain->first() % (blocks_per_group_ * kBlockSize) != 0)
    throw std::invalid_argument("a process's elements must start at a group's first element");
}

void BlockSums::reduce(Index column, Index count) {
  const Index blocks = static_cast<Index>(blocks_.size()) / std::max<Index>(width_, 1);
  // A group's sum starts from its first block's value: a group of one block is that block's
  // value, bit for bit (-0 included).
  for (Index g = 0; g < local_groups_; ++g) {
    const Index b0 = g * blocks_per_group_, b1 = std::min(blocks, b0 + blocks_per_group_);
    double* sum = mine_.data() + static_cast<std::size_t>(g * count);
    std::copy_n(blocks_.data() + static_cast<std::size_t>(b0 * width_ + column), count, sum);
    for (Index b = b0 + 1; b < b1; ++b)
      for (Index k = 0; k < count; ++k) sum[k] += blocks_[static_cast<std::size_t>(b * width_ + column + k)];
  }
  const std::span<const double> mine(mine_.data(), static_cast<std::size_t>(local_groups_ * count));
  const std::span<double> all(all_.data(), static_cast<std::size_t>(groups_ * count));
  if (subdomain_) subdomain_->gather_groups(mine, all, count);
  else std::copy(mine.begin(), mine.end(), all.begin());
  reduced_column_ = column;
  reduced_count_ = count;
}

void BlockSums::add_to(Index column, Index count, double* target, double scale) const {
  if (column < reduced_column_ || column + count > reduced_column_ + reduced_count_)
    throw std::logic_error("BlockSums::add_to: columns not reduced");
  const Index offset = column - reduced_column_;
  for (Index g = 0; g < groups_; ++g)
    for (Index k = 0; k < count; ++k) target[k] += scale * all_[static_cast<std::size_t>(g * reduced_count_ + offset + k)];
}

}  // namespace simgrad
