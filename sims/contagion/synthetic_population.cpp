#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/rng.hpp"
#include "sims/contagion/population.hpp"

namespace simgrad::contagion {

namespace {

// Draw streams of the generator, so that no two uses share a Philox block.
enum Stream : std::uint64_t { kAge = 1, kHousehold, kSchool, kWork, kRandom };

// Index of the share that a uniform u falls into (shares need not sum to 1).
std::size_t pick(const std::vector<double>& shares, double u) {
  double total = 0.0;
  for (double s : shares) total += s;
  double acc = 0.0;
  for (std::size_t k = 0; k < shares.size(); ++k) {
    acc += shares[k] / total;
    if (u < acc) return k;
  }
  return shares.size() - 1;
}

// Random contacts within consecutive groups of `group_size` members: each member gets
// `per_member` partners on average, drawn from its own group. Members are the agents for which
// `member(a)` holds, in order, streamed a group at a time (no list of all of them is kept).
template <class Member>
void group_contacts(Index agents, const Member& member, int group_size, double per_member, std::uint64_t seed,
                    Stream stream, std::uint8_t layer, EdgeList& edges, const ElementRun& kept) {
  std::vector<std::int32_t> group;
  std::size_t first = 0;  // the group's first member's place among all members
  auto close_group = [&] {
    const std::size_t size = group.size();
    if (size >= 2) {
      const long count = std::lround(per_member * static_cast<double>(size));
      for (long k = 0; k < count; ++k) {
        const auto words = CounterRng::block(seed, stream, first * 1000003ull + static_cast<std::uint64_t>(k), 0);
        const std::size_t a = words[0] % size;
        std::size_t b = words[1] % (size - 1);
        if (b >= a) ++b;
        edges.add_touching(kept, group[a], group[b], layer);
      }
    }
    first += size;
    group.clear();
  };
  for (Index a = 0; a < agents; ++a) {
    if (!member(a)) continue;
    group.push_back(static_cast<std::int32_t>(a));
    if (group.size() == static_cast<std::size_t>(group_size)) close_group();
  }
  close_group();
}

}  // namespace

Population make_synthetic_population(const SyntheticOptions& s, ElementRun kept) {
  if (s.agents < 2 || s.agents > (Index{1} << 31) - 1) throw std::invalid_argument("synthetic population: agents must be in [2, 2^31)");
  const bool whole = kept.last == 0;
  if (whole) kept = {0, s.agents};
  if (!(0 <= kept.first && kept.first < kept.last && kept.last <= s.agents))
    throw std::invalid_argument("synthetic population: the part's agents are out of range");
  Population p;
  p.agents = kept.last - kept.first;
  p.first_agent = kept.first;
  p.whole_agents = whole ? 0 : s.agents;
  p.age_groups = static_cast<int>(s.age_shares.size());
  p.layers = 4;
  p.layer_names = {"household", "school", "work", "random"};
  p.age.resize(static_cast<std::size_t>(p.agents));
  EdgeList edges;
  const double share = static_cast<double>(p.agents) / static_cast<double>(s.agents);
  edges.from.reserve(static_cast<std::size_t>(3.6 * share * static_cast<double>(s.agents)));
  edges.to.reserve(edges.from.capacity());
  edges.layer.reserve(edges.from.capacity());
  auto age_of = [&](Index a) { return pick(s.age_shares, uniform01(s.seed, kAge, static_cast<std::uint64_t>(a))); };
  // Households of consecutive agents; every pair in a household is a contact.
  Index i = 0;
  for (std::uint64_t h = 0; i < s.agents; ++h) {
    const Index size = std::min<Index>(s.agents - i, static_cast<Index>(pick(s.household_size_shares, uniform01(s.seed, kHousehold, h)) + 1));
    for (Index a = i; a < i + size; ++a) {
      if (kept.contains(a)) p.age[static_cast<std::size_t>(a - kept.first)] = static_cast<std::uint8_t>(age_of(a));
      for (Index b = i; b < a; ++b) edges.add_touching(kept, static_cast<std::int32_t>(b), static_cast<std::int32_t>(a), 0);
    }
    i += size;
  }
  group_contacts(s.agents, [&](Index a) { return age_of(a) == 0; }, s.school_size, s.school_contacts, s.seed, kSchool, 1,
                 edges, kept);
  group_contacts(s.agents, [&](Index a) { const std::size_t g = age_of(a); return g >= 1 && g <= 5; }, s.workplace_size,
                 s.work_contacts, s.seed, kWork, 2, edges, kept);
  // Random contacts between any two agents.
  const long random = std::lround(s.random_contacts * static_cast<double>(s.agents));
  const std::uint64_t n = static_cast<std::uint64_t>(s.agents);
  for (long k = 0; k < random; ++k) {
    const auto words = CounterRng::block(s.seed, kRandom, static_cast<std::uint64_t>(k), 0);
    const std::uint64_t a = words[0] % n;
    std::uint64_t b = words[1] % (n - 1);
    if (b >= a) ++b;
    edges.add_touching(kept, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), 3);
  }
  build_contacts(p, edges);
  return p;
}

}  // namespace simgrad::contagion
