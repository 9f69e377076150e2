#include "sims/contagion/population.hpp"

#include <algorithm>
#include <stdexcept>

namespace simgrad::contagion {

// Counting sort of both directions of every edge into rows, in edge-list order.
void build_contacts(Population& p, const EdgeList& edges) {
  const std::size_t m = edges.from.size();
  p.offsets.assign(static_cast<std::size_t>(p.agents) + 1, 0);
  for (std::size_t e = 0; e < m; ++e) {
    ++p.offsets[static_cast<std::size_t>(edges.from[e]) + 1];
    if (edges.to[e] != edges.from[e]) ++p.offsets[static_cast<std::size_t>(edges.to[e]) + 1];
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(p.agents); ++i) p.offsets[i + 1] += p.offsets[i];
  const std::size_t total = static_cast<std::size_t>(p.offsets.back());
  if (total > static_cast<std::size_t>(INT64_MAX)) throw std::length_error("too many contacts");
  p.neighbors.assign(total, 0);
  p.layer.assign(total, 0);
  std::vector<std::int64_t> next(p.offsets.begin(), p.offsets.end() - 1);
  for (std::size_t e = 0; e < m; ++e) {
    const std::int32_t a = edges.from[e], b = edges.to[e];
    std::int64_t& ka = next[static_cast<std::size_t>(a)];
    p.neighbors[static_cast<std::size_t>(ka)] = b;
    p.layer[static_cast<std::size_t>(ka++)] = edges.layer[e];
    if (a == b) continue;
    std::int64_t& kb = next[static_cast<std::size_t>(b)];
    p.neighbors[static_cast<std::size_t>(kb)] = a;
    p.layer[static_cast<std::size_t>(kb++)] = edges.layer[e];
  }
}

Population part_of(const Population& whole, Index first, Index last) {
  if (whole.whole_agents > 0) throw std::invalid_argument("part_of: the population is already a part");
  if (!(0 <= first && first < last && last <= whole.agents)) throw std::invalid_argument("part_of: agents out of range");
  Population part;
  part.agents = last - first;
  part.age_groups = whole.age_groups;
  part.age.assign(whole.age.begin() + first, whole.age.begin() + last);
  part.layers = whole.layers;
  part.layer_names = whole.layer_names;
  part.complete = whole.complete;
  part.whole_agents = whole.agents;
  part.first_agent = first;
  if (whole.complete) return part;
  const std::int64_t e0 = whole.offsets[static_cast<std::size_t>(first)], e1 = whole.offsets[static_cast<std::size_t>(last)];
  for (std::int64_t e = e0; e < e1; ++e)
    if (const std::int32_t j = whole.neighbors[static_cast<std::size_t>(e)]; j < first || j >= last) part.ghosts.push_back(j);
  std::sort(part.ghosts.begin(), part.ghosts.end());
  part.ghosts.erase(std::unique(part.ghosts.begin(), part.ghosts.end()), part.ghosts.end());
  if (part.agents + static_cast<Index>(part.ghosts.size()) > INT32_MAX) throw std::length_error("part_of: too many agents in a part");
  part.offsets.resize(static_cast<std::size_t>(part.agents) + 1);
  for (Index i = 0; i <= part.agents; ++i) part.offsets[static_cast<std::size_t>(i)] = whole.offsets[static_cast<std::size_t>(first + i)] - e0;
  part.neighbors.resize(static_cast<std::size_t>(e1 - e0));
  part.layer.assign(whole.layer.begin() + e0, whole.layer.begin() + e1);
  for (std::int64_t e = e0; e < e1; ++e) {
    const std::int32_t j = whole.neighbors[static_cast<std::size_t>(e)];
    const Index local = j >= first && j < last
                            ? j - first
                            : part.agents + (std::lower_bound(part.ghosts.begin(), part.ghosts.end(), j) - part.ghosts.begin());
    part.neighbors[static_cast<std::size_t>(e - e0)] = static_cast<std::int32_t>(local);
  }
  return part;
}

Population make_complete_population(Index agents) {
  Population p;
  p.agents = agents;
  p.age.assign(static_cast<std::size_t>(agents), 0);
  p.layer_names = {"all"};
  p.complete = true;
  return p;
}

}  // namespace simgrad::contagion
