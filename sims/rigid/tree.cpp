#include "sims/rigid/tree.hpp"

namespace simgrad::rigid {

RigidTree::RigidTree(const RigidModel& model)
    : bodies(static_cast<int>(model.bodies.size())), joints(static_cast<int>(model.joints.size())), nq(model.nq), nv(model.nv),
      nodes(static_cast<int>(model.soft_nodes.size())) {
  parent.resize(static_cast<std::size_t>(bodies));
  body_last_dof.assign(static_cast<std::size_t>(bodies), -1);
  dof_body.resize(static_cast<std::size_t>(nv));
  dof_parent.resize(static_cast<std::size_t>(nv));
  for (int b = 0; b < bodies; ++b) {
    const Body& body = model.bodies[static_cast<std::size_t>(b)];
    parent[static_cast<std::size_t>(b)] = body.parent;
    int last = body.parent < 0 ? -1 : body_last_dof[static_cast<std::size_t>(body.parent)];
    for (int j = body.first_joint; j < body.first_joint + body.joint_count; ++j) {
      const Joint& joint = model.joints[static_cast<std::size_t>(j)];
      for (int k = 0; k < velocity_count(joint.type); ++k) {
        const int d = joint.dof_address + k;
        dof_body[static_cast<std::size_t>(d)] = b;
        dof_parent[static_cast<std::size_t>(d)] = last;
        last = d;
      }
    }
    body_last_dof[static_cast<std::size_t>(b)] = last;
  }
}

}  // namespace simgrad::rigid
