#include "sims/rigid/model.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "sims/rigid/kinematics.hpp"
#include "sims/rigid/mass_matrix.hpp"

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

namespace {
constexpr double kContactFrequency = 60.0;  // rad/s
}  // namespace

void RigidModel::set_default_contact() {
  double total = 0.0;
  for (const double m : body_mass.values()) total += m;
  contact_stiffness.assign({total * kContactFrequency * kContactFrequency}, contact_stiffness.differentiable());
  contact_damping.assign({2.0 * total * kContactFrequency}, contact_damping.differentiable());
  restitution.assign({1.0}, restitution.differentiable());
}

void RigidModel::set_default_limits() {
  RigidTree tree(*this);
  const RigidConstants<double> c = constants_of(*this);
  RigidWorkspace<double> w;
  w.resize(tree);
  forward_kinematics(*this, qpos0.data(), w);
  inertias_and_axes(*this, c, w);
  mass_matrix(tree, c, w);
  for (Joint& joint : joints) {
    if (!joint.limited || (joint.type != JointType::kHinge && joint.type != JointType::kSlide)) continue;
    const double inertia = w.mass_matrix[static_cast<std::size_t>(joint.dof_address) * static_cast<std::size_t>(nv + 1)];
    joint.limit_stiffness = inertia * kContactFrequency * kContactFrequency;
    joint.limit_damping = 2.0 * inertia * kContactFrequency;
  }
}

void RigidModel::set_fluid_boxes() {
  for (Body& body : bodies) {
    Eigen::Matrix3d inertia;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) inertia(i, j) = body.unit_inertia(i, j);
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(inertia);
    const Eigen::Vector3d moments = eigen.eigenvalues();
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) body.principal_axes(i, j) = eigen.eigenvectors()(i, j);
      const double sum = moments((i + 1) % 3) + moments((i + 2) % 3) - moments(i);
      body.fluid_box.c[i] = std::sqrt(std::max(1e-15, sum) * 6.0);
    }
  }
}

}  // namespace simgrad::rigid
