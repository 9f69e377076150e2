#include "sims/contagion/population.hpp"

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

Population make_complete_population(Index agents) {
  Population p;
  p.agents = agents;
  p.age.assign(static_cast<std::size_t>(agents), 0);
  p.layer_names = {"all"};
  p.complete = true;
  return p;
}

}  // namespace simgrad::contagion
