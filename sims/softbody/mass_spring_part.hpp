// One process's part of a mass-spring model split over processes (core/subdomain.hpp).
//
// A part holds the nodes [first, last) of the whole model's numbering (a lattice numbers its nodes
// row by row, so a part is a slab), then copies ("ghosts") of the other nodes its springs reach,
// and every spring that touches one of its own nodes, in the whole model's order. A spring
// between two parts is held by both, and each computes its force for its own end: forces never
// cross between processes, only the ghosts' positions and velocities after each step, and the
// adjoints of the ghosts' forces in the adjoint pass (mass_spring.hpp). Keeping the whole model's
// spring order is what makes an own node's force, and its adjoints, the same sums in the same
// order as in the whole model.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/subdomain.hpp"
#include "sims/softbody/mass_spring_model.hpp"

namespace simgrad::softbody {

template <int D>
struct MassSpringPart {
  MassSpringModel<D> model;           // own nodes first, then the ghosts
  ElementRun nodes;                   // the whole model's numbers of the own nodes
  std::vector<std::int64_t> ghosts;   // the whole model's numbers of the ghosts, increasing
  std::vector<std::int64_t> springs;  // the whole model's number of each spring of the part

  // The part's number of a whole model's node it holds (own or ghost); -1 when it holds none.
  Index local_node(std::int64_t whole) const;
};

// The part of `whole` whose own nodes are `nodes`, also copying the nodes `also` lists (a loss's
// markers). A model with actuators is refused (std::invalid_argument): an actuator's signal
// adjoint is one sum over the springs it drives, across parts.
template <int D>
MassSpringPart<D> part_of(const MassSpringModel<D>& whole, ElementRun nodes, std::span<const std::int64_t> also = {});

extern template struct MassSpringPart<2>;
extern template struct MassSpringPart<3>;

}  // namespace simgrad::softbody
