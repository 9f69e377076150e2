// Checkpoint policies: which states a rollout keeps for its backward pass.
//
//   all          keep every state: T + 1 states, no recomputation.
//   every:K      keep every K-th state; recompute each segment of K steps once in the backward
//                pass: about T/K + K states, one extra forward pass.
//   binomial:S   keep at most S states on an optimal binomial schedule (Griewank's treeverse,
//                as in Revolve): with r the smallest integer such that C(S + r, S) >= T, each
//                step is recomputed at most r times, the fewest possible with S states.
// Every policy performs the same floating-point operations on the same states in the same order,
// so gradients are bit-for-bit identical whatever the choice.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace simgrad {

struct CheckpointPolicy {
  enum class Kind { kAll, kEvery, kBinomial };
  Kind kind = Kind::kAll;
  int k = 0;  // K for every:K, S for binomial:S

  // Parses "all", "every:K" or "binomial:S"; throws std::invalid_argument naming the text.
  static CheckpointPolicy parse(std::string_view text);
  std::string to_string() const;
};

namespace binomial {

// C(n, k), saturating at INT64_MAX.
std::int64_t choose(std::int64_t n, std::int64_t k);
// Smallest r such that C(c + r, c) >= n: the repetitions needed for n steps with c stored states.
int repetitions(std::int64_t n, int c);
// Fewest forward steps that reverse n steps starting from a stored state with c stored states in
// all (the start included): r n - C(c + r, c + 1) (Griewank 1992).
std::int64_t forward_cost(std::int64_t n, int c);
// Where to place the next checkpoint when reversing n steps with c stored states: an offset m in
// [1, n) minimising m + forward_cost(n - m, c - 1) + forward_cost(m, c).
std::int64_t split(std::int64_t n, int c);

}  // namespace binomial
}  // namespace simgrad
