#include "dist/partition.hpp"

#include <gtest/gtest.h>

namespace simgrad::dist {
namespace {

TEST(BlockOf, BlocksTileTheItemsInRankOrderAndDifferByAtMostOne) {
  for (std::size_t count = 0; count <= 40; ++count) {
    for (int ranks = 1; ranks <= 7; ++ranks) {
      std::size_t next = 0, smallest = count, largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const Block block = block_of(count, ranks, r);
        EXPECT_EQ(block.begin, next) << count << " items, rank " << r << " of " << ranks;
        next = block.end;
        smallest = std::min(smallest, block.size());
        largest = std::max(largest, block.size());
      }
      EXPECT_EQ(next, count);
      EXPECT_LE(largest - smallest, 1u);
    }
  }
  // More ranks than items: the first ranks take one each, the rest none.
  EXPECT_EQ(block_of(2, 4, 1).size(), 1u);
  EXPECT_EQ(block_of(2, 4, 3).size(), 0u);
}

}  // namespace
}  // namespace simgrad::dist
