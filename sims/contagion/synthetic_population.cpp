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
// `per_member` partners on average, drawn from its own group.
void group_contacts(const std::vector<std::int32_t>& members, int group_size, double per_member, std::uint64_t seed,
                    Stream stream, std::uint8_t layer, EdgeList& edges) {
  const std::size_t n = members.size();
  for (std::size_t first = 0; first < n; first += static_cast<std::size_t>(group_size)) {
    const std::size_t size = std::min(n - first, static_cast<std::size_t>(group_size));
    if (size < 2) continue;
    const long count = std::lround(per_member * static_cast<double>(size));
    for (long k = 0; k < count; ++k) {
      const auto words = CounterRng::block(seed, stream, first * 1000003ull + static_cast<std::uint64_t>(k), 0);
      const std::size_t a = words[0] % size;
      std::size_t b = words[1] % (size - 1);
      if (b >= a) ++b;
      edges.add(members[first + a], members[first + b], layer);
    }
  }
}

}  // namespace

Population make_synthetic_population(const SyntheticOptions& s) {
  if (s.agents < 2 || s.agents > (Index{1} << 31) - 1) throw std::invalid_argument("synthetic population: agents must be in [2, 2^31)");
  Population p;
  p.agents = s.agents;
  p.age_groups = static_cast<int>(s.age_shares.size());
  p.layers = 4;
  p.layer_names = {"household", "school", "work", "random"};
  p.age.resize(static_cast<std::size_t>(s.agents));
  EdgeList edges;
  edges.from.reserve(static_cast<std::size_t>(3.6 * static_cast<double>(s.agents)));
  edges.to.reserve(edges.from.capacity());
  edges.layer.reserve(edges.from.capacity());
  // Households of consecutive agents; every pair in a household is a contact.
  std::vector<std::int32_t> children, adults;
  Index i = 0;
  for (std::uint64_t h = 0; i < s.agents; ++h) {
    const Index size = std::min<Index>(s.agents - i, static_cast<Index>(pick(s.household_size_shares, uniform01(s.seed, kHousehold, h)) + 1));
    for (Index a = i; a < i + size; ++a) {
      p.age[static_cast<std::size_t>(a)] = static_cast<std::uint8_t>(pick(s.age_shares, uniform01(s.seed, kAge, static_cast<std::uint64_t>(a))));
      for (Index b = i; b < a; ++b) edges.add(static_cast<std::int32_t>(b), static_cast<std::int32_t>(a), 0);
      const int age = p.age[static_cast<std::size_t>(a)];
      if (age == 0) children.push_back(static_cast<std::int32_t>(a));
      else if (age <= 5) adults.push_back(static_cast<std::int32_t>(a));
    }
    i += size;
  }
  group_contacts(children, s.school_size, s.school_contacts, s.seed, kSchool, 1, edges);
  group_contacts(adults, s.workplace_size, s.work_contacts, s.seed, kWork, 2, edges);
  // Random contacts between any two agents.
  const long random = std::lround(s.random_contacts * static_cast<double>(s.agents));
  const std::uint64_t n = static_cast<std::uint64_t>(s.agents);
  for (long k = 0; k < random; ++k) {
    const auto words = CounterRng::block(s.seed, kRandom, static_cast<std::uint64_t>(k), 0);
    const std::uint64_t a = words[0] % n;
    std::uint64_t b = words[1] % (n - 1);
    if (b >= a) ++b;
    edges.add(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), 3);
  }
  build_contacts(p, edges);
  return p;
}

}  // namespace simgrad::contagion
