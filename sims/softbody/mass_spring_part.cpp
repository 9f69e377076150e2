#include "sims/softbody/mass_spring_part.hpp"

#include <algorithm>
#include <stdexcept>

namespace simgrad::softbody {
namespace {

// to = the rows of `from` that `rows` names, in that order, differentiated as `from` is.
template <int W>
void copy_rows(const Array<W>& from, std::span<const std::int64_t> rows, Array<W>& to) {
  to.resize(static_cast<Index>(rows.size()), from.differentiable());
  const auto source = from.values();
  auto target = to.values();
  for (std::size_t k = 0; k < rows.size(); ++k)
    std::copy_n(source.begin() + rows[k] * W, W, target.begin() + static_cast<std::ptrdiff_t>(k * W));
}

}  // namespace

template <int D>
Index MassSpringPart<D>::local_node(std::int64_t whole) const {
  if (nodes.contains(whole)) return whole - nodes.first;
  const auto at = std::lower_bound(ghosts.begin(), ghosts.end(), whole);
  if (at == ghosts.end() || *at != whole) return -1;
  return (nodes.last - nodes.first) + (at - ghosts.begin());
}

template <int D>
MassSpringPart<D> part_of(const MassSpringModel<D>& whole, ElementRun nodes, std::span<const std::int64_t> also) {
  if (whole.actuator_count > 0)
    throw std::invalid_argument("a mass-spring model with actuators does not split over processes yet");
  if (!(0 <= nodes.first && nodes.first < nodes.last && nodes.last <= whole.node_count))
    throw std::invalid_argument("part_of: nodes out of range");
  MassSpringPart<D> part;
  part.nodes = nodes;
  const Incidence& springs = whole.springs;
  for (Index e = 0; e < springs.elements(); ++e) {
    const Index a = springs.node(e, 0), b = springs.node(e, 1);
    if (!nodes.contains(a) && !nodes.contains(b)) continue;
    part.springs.push_back(e);
    part.ghosts.push_back(nodes.contains(a) ? b : a);
  }
  for (const std::int64_t n : also) {
    if (n < 0 || n >= whole.node_count) throw std::invalid_argument("part_of: a node to copy is out of range");
    part.ghosts.push_back(n);
  }
  std::erase_if(part.ghosts, [&](std::int64_t n) { return nodes.contains(n); });
  std::sort(part.ghosts.begin(), part.ghosts.end());
  part.ghosts.erase(std::unique(part.ghosts.begin(), part.ghosts.end()), part.ghosts.end());

  // The part's nodes by whole number: own, then ghosts.
  std::vector<std::int64_t> held;
  held.reserve(static_cast<std::size_t>(nodes.last - nodes.first) + part.ghosts.size());
  for (Index n = nodes.first; n < nodes.last; ++n) held.push_back(n);
  held.insert(held.end(), part.ghosts.begin(), part.ghosts.end());
  std::vector<std::int32_t> ends;
  ends.reserve(2 * part.springs.size());
  for (const std::int64_t e : part.springs)
    for (int s = 0; s < 2; ++s) ends.push_back(static_cast<std::int32_t>(part.local_node(springs.node(e, s))));

  MassSpringModel<D>& m = part.model;
  m.build(static_cast<Index>(held.size()), std::move(ends), whole.settings.steps);
  m.settings = whole.settings;
  m.planes = whole.planes;
  m.gravity = whole.gravity;
  copy_rows(whole.inverse_mass, held, m.inverse_mass);
  copy_rows(whole.initial_position, held, m.initial_position);
  copy_rows(whole.initial_velocity, held, m.initial_velocity);
  copy_rows(whole.stiffness, part.springs, m.stiffness);
  copy_rows(whole.damping, part.springs, m.damping);
  copy_rows(whole.rest_length, part.springs, m.rest_length);
  return part;
}

template struct MassSpringPart<2>;
template struct MassSpringPart<3>;
template MassSpringPart<2> part_of(const MassSpringModel<2>&, ElementRun, std::span<const std::int64_t>);
template MassSpringPart<3> part_of(const MassSpringModel<3>&, ElementRun, std::span<const std::int64_t>);

}  // namespace simgrad::softbody
