#include "sims/contagion/population.hpp"

#include <algorithm>
#include <stdexcept>

namespace simgrad::contagion {

namespace {

// Renumbers the rows' neighbours, given as the whole population's agents, for a part: its own
// agents from 0, the others as ghosts after them (ghosts in increasing order). The whole is
// left as it is.
void name_ghosts(Population& p) {
  const ElementRun own{p.first_agent, p.first_agent + p.agents};
  for (const std::int32_t j : p.neighbors)
    if (!own.contains(j)) p.ghosts.push_back(j);
  if (p.ghosts.empty()) return;
  std::sort(p.ghosts.begin(), p.ghosts.end());
  p.ghosts.erase(std::unique(p.ghosts.begin(), p.ghosts.end()), p.ghosts.end());
  // (Own agents and ghosts are agents of the whole, fewer than 2^31: int32 numbers.)
  for (std::int32_t& j : p.neighbors)
    j = static_cast<std::int32_t>(own.contains(j) ? j - own.first
                                                  : p.agents + (std::lower_bound(p.ghosts.begin(), p.ghosts.end(), j) - p.ghosts.begin()));
}

}  // namespace

// Counting sort of both directions of every edge into the rows of the agents held, in edge-list
// order; then the part's ghosts.
void build_contacts(Population& p, const EdgeList& edges) {
  const std::size_t m = edges.from.size();
  const Index first = p.first_agent;
  const ElementRun own{first, first + p.agents};
  p.offsets.assign(static_cast<std::size_t>(p.agents) + 1, 0);
  for (std::size_t e = 0; e < m; ++e) {
    if (own.contains(edges.from[e])) ++p.offsets[static_cast<std::size_t>(edges.from[e] - first) + 1];
    if (edges.to[e] != edges.from[e] && own.contains(edges.to[e])) ++p.offsets[static_cast<std::size_t>(edges.to[e] - first) + 1];
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(p.agents); ++i) p.offsets[i + 1] += p.offsets[i];
  const std::size_t total = static_cast<std::size_t>(p.offsets.back());
  if (total > static_cast<std::size_t>(INT64_MAX)) throw std::length_error("too many contacts");
  p.neighbors.assign(total, 0);
  p.layer.assign(total, 0);
  std::vector<std::int64_t> next(p.offsets.begin(), p.offsets.end() - 1);
  for (std::size_t e = 0; e < m; ++e) {
    const std::int32_t a = edges.from[e], b = edges.to[e];
    if (own.contains(a)) {
      std::int64_t& ka = next[static_cast<std::size_t>(a - first)];
      p.neighbors[static_cast<std::size_t>(ka)] = b;
      p.layer[static_cast<std::size_t>(ka++)] = edges.layer[e];
    }
    if (a == b || !own.contains(b)) continue;
    std::int64_t& kb = next[static_cast<std::size_t>(b - first)];
    p.neighbors[static_cast<std::size_t>(kb)] = a;
    p.layer[static_cast<std::size_t>(kb++)] = edges.layer[e];
  }
  name_ghosts(p);
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
  part.offsets.resize(static_cast<std::size_t>(part.agents) + 1);
  for (Index i = 0; i <= part.agents; ++i) part.offsets[static_cast<std::size_t>(i)] = whole.offsets[static_cast<std::size_t>(first + i)] - e0;
  part.neighbors.assign(whole.neighbors.begin() + e0, whole.neighbors.begin() + e1);
  part.layer.assign(whole.layer.begin() + e0, whole.layer.begin() + e1);
  name_ghosts(part);
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
