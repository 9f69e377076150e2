#include "sims/rigid/model.hpp"

#include <algorithm>

namespace simgrad::rigid {

void RigidModel::resize(int world_count, int step_count) {
  worlds = world_count;
  steps = step_count;
  std::vector<double> q(static_cast<std::size_t>(world_count) * nq);
  for (int w = 0; w < world_count; ++w) std::copy(qpos0.begin(), qpos0.end(), q.begin() + static_cast<std::ptrdiff_t>(w) * nq);
  initial_qpos.assign(q, initial_qpos.differentiable());
  initial_qvel.resize(static_cast<Index>(world_count) * nv, initial_qvel.differentiable());
  controls.resize(static_cast<Index>(step_count) * world_count * nu(), controls.differentiable());
}

void RigidModel::set_differentiable(bool on) {
  for (Array<1>* a : tunable_arrays()) a->set_differentiable(on);
}

void RigidModel::set_default_contact() {
  constexpr double kContactFrequency = 60.0;  // rad/s
  double total = 0.0;
  for (const double m : body_mass.values()) total += m;
  contact_stiffness.assign({total * kContactFrequency * kContactFrequency}, contact_stiffness.differentiable());
  contact_damping.assign({2.0 * total * kContactFrequency}, contact_damping.differentiable());
}

}  // namespace simgrad::rigid
