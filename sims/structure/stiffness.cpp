#include "sims/structure/stiffness.hpp"

#include <algorithm>
#include <cmath>

namespace simgrad::structure {

namespace {

// A dof's direction as messages name it.
const char* axis_name(int axis, StructureKind kind) {
  static const char* names[] = {"x", "y", "z"};
  if (kind == StructureKind::frame2d && axis == 2) return "rotation";
  return names[axis];
}

}  // namespace

DofMap number_dofs(const TrussModel& model) {
  const int per = model.dofs();
  DofMap map;
  map.free_index.assign(static_cast<std::size_t>(model.joint_count * per), 0);
  for (const Support& s : model.supports) {
    const std::size_t base = static_cast<std::size_t>(s.joint * per);
    if (s.kind == SupportKind::roller) {
      map.free_index[base + static_cast<std::size_t>(s.roller_axis)] = -1;
    } else {
      // A pinned support holds the translations; a fixed one the rotation too.
      const int held = s.kind == SupportKind::fixed ? per : model.dimension();
      for (int k = 0; k < held; ++k) map.free_index[base + static_cast<std::size_t>(k)] = -1;
    }
  }
  for (int j = 0; j < model.joint_count; ++j)
    for (int k = 0; k < per; ++k) {
      int& index = map.free_index[static_cast<std::size_t>(j * per + k)];
      if (index < 0) continue;
      index = map.free_count++;
      map.owner_joint.push_back(j);
      map.owner_axis.push_back(k);
    }
  return map;
}

StiffnessMatrix::StiffnessMatrix(const TrussModel& model, const DofMap& dofs)
    : model_(&model), dofs_(&dofs), member_dofs_(2 * model.dofs()) {
  const int per = model.dofs(), n = member_dofs_;
  std::vector<Eigen::Triplet<double>> pattern;
  std::vector<int> rows, cols;
  for (const Member& m : model.members)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const int gi = dofs.free_index[static_cast<std::size_t>(m.joints[static_cast<std::size_t>(i / per)] * per + i % per)];
        const int gj = dofs.free_index[static_cast<std::size_t>(m.joints[static_cast<std::size_t>(j / per)] * per + j % per)];
        rows.push_back(gi);
        cols.push_back(gj);
        if (gi >= 0 && gj >= 0) pattern.emplace_back(gi, gj, 1.0);
      }
  // Every free dof gets a diagonal entry, so that a dof no member touches is reported as
  // singular by the factorisation rather than breaking the symbolic analysis.
  for (int i = 0; i < dofs.free_count; ++i) pattern.emplace_back(i, i, 0.0);
  k_.resize(dofs.free_count, dofs.free_count);
  k_.setFromTriplets(pattern.begin(), pattern.end());
  k_.makeCompressed();
  slot_.resize(rows.size());
  for (std::size_t e = 0; e < rows.size(); ++e) {
    if (rows[e] < 0 || cols[e] < 0) {
      slot_[e] = -1;
      continue;
    }
    // Column-major storage: find the row within the column's sorted inner indices.
    const int* begin = k_.innerIndexPtr() + k_.outerIndexPtr()[cols[e]];
    const int* end = k_.innerIndexPtr() + k_.outerIndexPtr()[cols[e] + 1];
    slot_[e] = static_cast<int>(std::lower_bound(begin, end, rows[e]) - k_.innerIndexPtr());
  }
  solver_.analyzePattern(k_);
}

void StiffnessMatrix::assemble_and_factorise(const std::vector<double>& member_matrices) {
  double* values = k_.valuePtr();
  std::fill(values, values + k_.nonZeros(), 0.0);
  for (std::size_t e = 0; e < slot_.size(); ++e)
    if (slot_[e] >= 0) values[slot_[e]] += member_matrices[e];
  solver_.factorize(k_);
  // A pivot that is not clearly positive relative to the matrix's own scale means a mechanism:
  // a dof that nothing holds, or a set of joints that can move without stretching a member.
  double scale = 0.0;
  for (int i = 0; i < k_.rows(); ++i) scale = std::max(scale, std::abs(k_.coeff(i, i)));
  const Eigen::VectorXd& d = solver_.vectorD();
  const bool failed = solver_.info() != Eigen::Success;
  for (int i = 0; i < d.size(); ++i) {
    if (!failed && d[i] > 1e-11 * scale) continue;
    // vectorD is in the fill-reducing order; map the pivot back to its dof.
    int dof = i;
    const auto& p = solver_.permutationP();
    for (int k = 0; k < p.size(); ++k)
      if (p.indices()[k] == i) dof = k;
    const int joint = dofs_->owner_joint[static_cast<std::size_t>(dof)];
    throw StructureError("the stiffness matrix is singular at joint " + std::to_string(joint) + " (" +
                         axis_name(dofs_->owner_axis[static_cast<std::size_t>(dof)], model_->kind) +
                         "): the structure is a mechanism there or lacks supports; add members or supports");
  }
}

void StiffnessMatrix::solve(Eigen::MatrixXd& b) const { b = solver_.solve(b); }

}  // namespace simgrad::structure
