#pragma once

// How items (a batch's evaluations) are split over the processes of a run: contiguous blocks in
// rank order, sizes differing by at most one, the larger blocks first. Rank r's block starts
// where rank r-1's ends, so gathering the blocks in rank order restores the items' order.

#include <cstddef>

namespace simgrad::dist {

struct Block {
  std::size_t begin = 0;  // first item
  std::size_t end = 0;    // one past the last
  std::size_t size() const { return end - begin; }
};

// Rank `rank`'s block of `count` items split over `ranks` processes.
constexpr Block block_of(std::size_t count, int ranks, int rank) {
  const std::size_t share = count / std::size_t(ranks), extra = count % std::size_t(ranks);
  const std::size_t r = std::size_t(rank);
  const std::size_t begin = r * share + (r < extra ? r : extra);
  return {begin, begin + share + (r < extra ? 1 : 0)};
}

}  // namespace simgrad::dist
