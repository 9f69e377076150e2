#include "core/checkpoint.hpp"

#include <charconv>
#include <limits>
#include <stdexcept>

namespace simgrad {

namespace {

// Parses a positive integer after a prefix such as "every:".
int parse_count(std::string_view text, std::string_view prefix) {
  std::string_view digits = text.substr(prefix.size());
  int value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value < 1)
    throw std::invalid_argument("checkpoint policy \"" + std::string(text) + "\": expected " +
                                std::string(prefix) + "N with an integer N >= 1");
  return value;
}

}  // namespace

CheckpointPolicy CheckpointPolicy::parse(std::string_view text) {
  if (text == "all") return {Kind::kAll, 0};
  if (text.starts_with("every:")) return {Kind::kEvery, parse_count(text, "every:")};
  if (text.starts_with("binomial:")) {
    CheckpointPolicy p{Kind::kBinomial, parse_count(text, "binomial:")};
    if (p.k < 2) throw std::invalid_argument("checkpoint policy \"" + std::string(text) + "\": binomial needs S >= 2");
    return p;
  }
  throw std::invalid_argument("checkpoint policy \"" + std::string(text) +
                              "\": expected one of \"all\", \"every:K\", \"binomial:S\"");
}

std::string CheckpointPolicy::to_string() const {
  switch (kind) {
    case Kind::kAll: return "all";
    case Kind::kEvery: return "every:" + std::to_string(k);
    case Kind::kBinomial: return "binomial:" + std::to_string(k);
  }
  return "all";
}

namespace binomial {

std::int64_t choose(std::int64_t n, std::int64_t k) {
  if (k < 0 || k > n) return 0;
  if (k > n - k) k = n - k;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t r = 1;
  for (std::int64_t i = 1; i <= k; ++i) {
    // r * (n - k + i) / i is exact at every stage; guard the product against overflow.
    const std::int64_t f = n - k + i;
    if (r > kMax / f) return kMax;
    r = r * f / i;
  }
  return r;
}

int repetitions(std::int64_t n, int c) {
  int r = 0;
  while (choose(c + r, c) < n) ++r;
  return r;
}

std::int64_t forward_cost(std::int64_t n, int c) {
  if (n <= 1) return 0;
  if (c <= 1) return n * (n - 1) / 2;
  const int r = repetitions(n, c);
  return r * n - choose(c + r, c + 1);
}

std::int64_t split(std::int64_t n, int c) {
  auto cost = [&](std::int64_t m) { return m + forward_cost(n - m, c - 1) + forward_cost(m, c); };
  // The cost is convex in m (a sum of convex piecewise-linear functions), so the leftmost
  // minimiser is the first m whose forward difference is non-negative.
  std::int64_t lo = 1, hi = n - 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (cost(mid + 1) - cost(mid) >= 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

}  // namespace binomial
}  // namespace simgrad
