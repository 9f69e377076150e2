// A split model's pieces that need no processes: the runs of groups, the fixed order of the
// block sums, and the ghost messages, whose values must come back bit for bit.
#include "core/subdomain.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/parallel.hpp"

namespace simgrad {
namespace {

std::vector<std::uint64_t> bits_of(const std::vector<double>& values) {
  std::vector<std::uint64_t> bits;
  for (double v : values) bits.push_back(std::bit_cast<std::uint64_t>(v));
  return bits;
}

// A message round trip: the values' bits, whatever they are (-0, NaN, denormals, infinities).
void expect_round_trip(const std::vector<double>& values, bool packed) {
  std::vector<double> message(2 * values.size()), back(values.size(), 42.0);
  const std::size_t length = pack_ghost_values(values, message);
  EXPECT_EQ(length < values.size(), packed);
  unpack_ghost_values({message.data(), length}, back);
  EXPECT_EQ(bits_of(back), bits_of(values));
}

TEST(Subdomain, GhostMessagesKeepEveryBitAndAreShortWhenMostValuesAreZero) {
  std::vector<double> sparse(100, 0.0);
  sparse[3] = -0.0;
  sparse[17] = std::numeric_limits<double>::quiet_NaN();
  sparse[50] = std::numeric_limits<double>::denorm_min();
  sparse[99] = -std::numeric_limits<double>::infinity();
  expect_round_trip(sparse, true);
  std::vector<double> message(200);
  EXPECT_EQ(pack_ghost_values(sparse, message), 8u);  // four (place, value) pairs
  std::vector<double> dense(10, 1.5);
  dense[4] = 0.0;
  expect_round_trip(dense, false);
  expect_round_trip(std::vector<double>(7, 0.0), true);  // all zeros: an empty message
  expect_round_trip({}, false);
  // Exactly half non-zero: the values themselves (pairs would be as long).
  expect_round_trip({1.0, 0.0, 2.0, 0.0}, false);
}

TEST(Subdomain, RunsAreWholeGroupsCoveringTheModelInOrder) {
  for (const Index total : {Index{1}, Index{5000}, Index{kBlockSize * kMaxGroups + 777}, Index{10'000'000}})
    for (int processes = 1; processes <= std::min<Index>(5, group_count(total)); ++processes) {
      Index next = 0;
      for (int p = 0; p < processes; ++p) {
        const ElementRun run = partition_run(total, processes, p);
        EXPECT_EQ(run.first, next);
        EXPECT_LT(run.first, run.last);
        EXPECT_EQ(run.first % (group_blocks(total) * kBlockSize), 0);
        next = run.last;
      }
      EXPECT_EQ(next, total);
    }
  EXPECT_THROW(partition_run(5000, 11, 0), std::invalid_argument);  // 10 groups
}

// Block sums over more than kMaxGroups blocks: per group in block order, then over groups, the
// same bits as adding the blocks' own sums that way by hand (and not the plain block order,
// which differs in the last bits for these values).
TEST(Subdomain, BlockSumsAddGroupsOfBlocksInOrder) {
  const Index elements = kBlockSize * (kMaxGroups + 300);
  const Index per_group = group_blocks(elements);
  ASSERT_EQ(per_group, 2);
  BlockSums sums(elements, 2, nullptr);
  const Index blocks = block_count(elements);
  std::vector<double> column(static_cast<std::size_t>(blocks));
  for (Index b = 0; b < blocks; ++b) {
    column[static_cast<std::size_t>(b)] = std::sin(static_cast<double>(b)) * 1e3 + 1e-7 * static_cast<double>(b % 13);
    sums.block(b)[0] = 0.0;
    sums.block(b)[1] = column[static_cast<std::size_t>(b)];
  }
  sums.reduce(1, 1);
  double expected = 0.0, plain = 0.0;
  for (Index g = 0; g * per_group < blocks; ++g) {
    double group = column[static_cast<std::size_t>(g * per_group)];
    for (Index b = g * per_group + 1; b < std::min(blocks, (g + 1) * per_group); ++b) group += column[static_cast<std::size_t>(b)];
    expected += group;
  }
  for (double v : column) plain += v;
  EXPECT_EQ(sums.total(1), expected);
  EXPECT_NE(expected, plain);  // the test can tell the two orders apart
  double scaled = 1.0;
  sums.add_to(1, 1, &scaled, -2.0);
  EXPECT_NE(scaled, 1.0);
  EXPECT_THROW(sums.add_to(0, 1, &scaled), std::logic_error);  // column 0 was not reduced
}

}  // namespace
}  // namespace simgrad
