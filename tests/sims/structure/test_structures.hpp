// Small structures for tests: joints and members given as lists, every member of one section.
#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include "sims/structure/bridge_generator.hpp"

namespace simgrad::structure {

// A structure of `kind` with joints at `positions` (dimension() numbers each) and members
// between the given joint pairs, each sized with `section` times (1 + growth x its first joint).
inline Structure structure_of(StructureKind kind, const Material& material, const Section& section,
                              std::vector<double> positions, std::initializer_list<std::pair<int, int>> members,
                              double growth = 0.0) {
  Structure s;
  s.model.kind = kind;
  s.model.materials = {material};
  s.model.joint_count = static_cast<int>(positions.size()) / s.model.dimension();
  s.design.positions = std::move(positions);
  for (auto [a, b] : members) {
    Member mem;
    mem.joints = {a, b};
    mem.section = section;
    s.model.members.push_back(mem);
    s.design.areas.push_back(section.area * (1.0 + growth * a));
  }
  return s;
}

}  // namespace simgrad::structure
