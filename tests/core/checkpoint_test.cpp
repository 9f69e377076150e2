#include "core/checkpoint.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace simgrad {
namespace {

TEST(CheckpointPolicy, ParsesTheThreeForms) {
  EXPECT_EQ(CheckpointPolicy::parse("all").kind, CheckpointPolicy::Kind::kAll);
  const auto every = CheckpointPolicy::parse("every:25");
  EXPECT_EQ(every.kind, CheckpointPolicy::Kind::kEvery);
  EXPECT_EQ(every.k, 25);
  const auto bin = CheckpointPolicy::parse("binomial:200");
  EXPECT_EQ(bin.kind, CheckpointPolicy::Kind::kBinomial);
  EXPECT_EQ(bin.k, 200);
  EXPECT_EQ(bin.to_string(), "binomial:200");
}

TEST(CheckpointPolicy, RejectsMalformedText) {
  for (const char* bad : {"", "al", "every:", "every:0", "every:-3", "every:3x", "binomial:1", "revolve:4"})
    EXPECT_THROW(CheckpointPolicy::parse(bad), std::invalid_argument) << bad;
}

// Fewest forward steps to reverse n steps with c stored states, by exhaustive dynamic programming.
std::vector<std::vector<long>> optimal_costs(int max_n, int max_c) {
  std::vector<std::vector<long>> cost(static_cast<std::size_t>(max_c + 1), std::vector<long>(max_n + 1, 0));
  for (int c = 1; c <= max_c; ++c)
    for (int n = 2; n <= max_n; ++n) {
      if (c == 1) {
        cost[1][n] = static_cast<long>(n) * (n - 1) / 2;
        continue;
      }
      long best = std::numeric_limits<long>::max();
      for (int m = 1; m < n; ++m) best = std::min(best, m + cost[c - 1][n - m] + cost[c][m]);
      cost[c][n] = best;
    }
  return cost;
}

// Forward steps used by the treeverse schedule built from binomial::split.
long schedule_cost(long n, int c) {
  if (n <= 1) return 0;
  if (c <= 1) return n * (n - 1) / 2;
  const long m = binomial::split(n, c);
  return m + schedule_cost(n - m, c - 1) + schedule_cost(m, c);
}

TEST(Binomial, ClosedFormCostMatchesExhaustiveOptimum) {
  const auto dp = optimal_costs(120, 6);
  for (int c = 1; c <= 6; ++c)
    for (int n = 1; n <= 120; ++n) {
      EXPECT_EQ(binomial::forward_cost(n, c), dp[c][n]) << "n=" << n << " c=" << c;
      EXPECT_EQ(schedule_cost(n, c), dp[c][n]) << "n=" << n << " c=" << c;
    }
}

TEST(Binomial, RepetitionsForTheBenchmarkHorizon) {
  // T = 10,000 with S = 200 states: C(202, 2) = 20301 >= 10^4 > C(201, 1), so two repetitions.
  EXPECT_EQ(binomial::repetitions(10000, 200), 2);
  EXPECT_EQ(binomial::choose(202, 2), 20301);
  EXPECT_LE(binomial::forward_cost(10000, 200), 2 * 10000);
}

}  // namespace
}  // namespace simgrad
