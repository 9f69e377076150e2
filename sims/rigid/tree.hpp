// The kinematic tree's topology, derived once from a model: which body each degree of freedom
// moves, and the dof before it on the path to the root. The mass matrix's sparsity and every
// recursion over the tree follow these arrays.
#pragma once

#include <vector>

#include "sims/rigid/model.hpp"

namespace simgrad::rigid {

struct RigidTree {
  int bodies = 0;
  int joints = 0;
  int nq = 0;
  int nv = 0;
  int nodes = 0;  // soft nodes
  std::vector<int> parent;      // per body
  std::vector<int> dof_body;    // per dof
  std::vector<int> dof_parent;  // per dof: the previous dof towards the root, or -1
  std::vector<int> body_last_dof;  // per body: its last dof or the nearest ancestor's, or -1

  explicit RigidTree(const RigidModel& model);
};

}  // namespace simgrad::rigid
