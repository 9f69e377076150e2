// The direct stiffness method: member stiffness matrices in global coordinates, assembly into a
// sparse matrix of the free degrees of freedom, and its sparse Cholesky factorisation, with a
// clear error when the structure is a mechanism or lacks supports (a singular matrix).
#pragma once

#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/local_ad.hpp"
#include "sims/structure/truss_model.hpp"

namespace simgrad::structure {

// The largest member matrix: a frame member's 6 x 6, or a 3D truss member's 6 x 6.
inline constexpr int kMaxMemberDofs = 6;

// The axis and length of a member from its end positions.
template <class S>
struct MemberGeometry {
  S length;
  std::array<S, 3> axis;  // unit vector from the first joint to the second
};

template <class S>
MemberGeometry<S> member_geometry(const S* a, const S* b, int dimension) {
  using std::sqrt;
  MemberGeometry<S> g;
  S l2 = S(0.0);
  for (int k = 0; k < dimension; ++k) {
    g.axis[static_cast<std::size_t>(k)] = b[k] - a[k];
    l2 = l2 + g.axis[static_cast<std::size_t>(k)] * g.axis[static_cast<std::size_t>(k)];
  }
  g.length = sqrt(l2);
  for (int k = 0; k < dimension; ++k) g.axis[static_cast<std::size_t>(k)] = g.axis[static_cast<std::size_t>(k)] / g.length;
  for (int k = dimension; k < 3; ++k) g.axis[static_cast<std::size_t>(k)] = S(0.0);
  return g;
}

// The member's stiffness matrix in global coordinates, row-major, n x n with n = 2 dofs():
// a truss bar E A / L along its axis; a frame member the Euler-Bernoulli beam-column.
template <class S>
void member_stiffness(StructureKind kind, const MemberGeometry<S>& g, const S& young, const S& area,
                      const S& inertia, S* k) {
  if (kind != StructureKind::frame2d) {
    const int d = dimension_of(kind), n = 2 * d;
    const S axial = young * area / g.length;
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) {
        const S v = axial * g.axis[static_cast<std::size_t>(i)] * g.axis[static_cast<std::size_t>(j)];
        k[i * n + j] = v;
        k[(i + d) * n + (j + d)] = v;
        k[i * n + (j + d)] = -v;
        k[(i + d) * n + j] = -v;
      }
    return;
  }
  const S c = g.axis[0], s = g.axis[1], L = g.length;
  const S ea = young * area / L;
  const S ei = young * inertia;
  const S b12 = 12.0 * ei / (L * L * L), b6 = 6.0 * ei / (L * L), b4 = 4.0 * ei / L, b2 = 2.0 * ei / L;
  // Local matrix in (axial, transverse, rotation) per end.
  const S local[6][6] = {{ea, S(0.0), S(0.0), -ea, S(0.0), S(0.0)},
                         {S(0.0), b12, b6, S(0.0), -b12, b6},
                         {S(0.0), b6, b4, S(0.0), -b6, b2},
                         {-ea, S(0.0), S(0.0), ea, S(0.0), S(0.0)},
                         {S(0.0), -b12, -b6, S(0.0), b12, -b6},
                         {S(0.0), b6, b2, S(0.0), -b6, b4}};
  // T maps global (u, v, theta) to local per end; k = T^T local T, written out per 3 x 3 block.
  const S t[3][3] = {{c, s, S(0.0)}, {-s, c, S(0.0)}, {S(0.0), S(0.0), S(1.0)}};
  for (int bi = 0; bi < 2; ++bi)
    for (int bj = 0; bj < 2; ++bj)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          S v = S(0.0);
          for (int p = 0; p < 3; ++p)
            for (int q = 0; q < 3; ++q) v = v + t[p][i] * local[3 * bi + p][3 * bj + q] * t[q][j];
          k[(3 * bi + i) * 6 + (3 * bj + j)] = v;
        }
}

// A member's internal forces from its end displacements (global, n = 2 dofs()).
template <class S>
struct MemberForces {
  S axial;       // tension positive
  S moment_a;    // end moments of a frame member (zero in a truss)
  S moment_b;
};

template <class S, class U>
auto member_forces(StructureKind kind, const MemberGeometry<S>& g, const S& young, const S& area,
                   const S& inertia, const U* u) -> MemberForces<decltype(S() * U())> {
  using R = decltype(S() * U());
  const int d = dimension_of(kind);
  if (kind != StructureKind::frame2d) {
    const int n = d;
    R stretch = R(0.0);
    for (int k = 0; k < d; ++k) stretch = stretch + g.axis[static_cast<std::size_t>(k)] * (u[n + k] - u[k]);
    return {young * area / g.length * stretch, R(0.0), R(0.0)};
  }
  const S c = g.axis[0], s = g.axis[1], L = g.length;
  // Local displacements: along, across, rotation at each end.
  const R ua = c * u[0] + s * u[1], va = c * u[1] - s * u[0];
  const R ub = c * u[3] + s * u[4], vb = c * u[4] - s * u[3];
  const S ei = young * inertia;
  const R axial = young * area / L * (ub - ua);
  const R ma = ei / (L * L) * (6.0 * va - 6.0 * vb) + ei / L * (4.0 * u[2] + 2.0 * u[5]);
  const R mb = ei / (L * L) * (6.0 * va - 6.0 * vb) + ei / L * (2.0 * u[2] + 4.0 * u[5]);
  return {axial, ma, mb};
}

// Where each member's degrees of freedom sit among the free ones (-1: held by a support), and
// which joint and direction each free one belongs to.
struct DofMap {
  std::vector<int> free_index;   // per joint dof: index among the free dofs, or -1
  std::vector<int> owner_joint;  // per free dof
  std::vector<int> owner_axis;   // per free dof
  int free_count = 0;
};

// Numbers the free degrees of freedom, joint by joint.
DofMap number_dofs(const TrussModel& model);

// An error in the structure itself (a mechanism, a missing support), not in the numbers.
class StructureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The global stiffness matrix of the free dofs, with its pattern fixed once and its sparse
// Cholesky (LDL^T) symbolic analysis done once; values are refilled per design.
class StiffnessMatrix {
 public:
  StiffnessMatrix(const TrussModel& model, const DofMap& dofs);

  // Adds member matrices (row-major, n x n each, in member order) into the matrix's values, in
  // a fixed order, then factorises it; throws StructureError naming a joint and direction when
  // the matrix is singular.
  void assemble_and_factorise(const std::vector<double>& member_matrices);

  // Solves K X = B for every column of B in place.
  void solve(Eigen::MatrixXd& b) const;

  const Eigen::SparseMatrix<double>& matrix() const { return k_; }
  int member_dofs() const { return member_dofs_; }

 private:
  const TrussModel* model_;
  const DofMap* dofs_;
  int member_dofs_;
  Eigen::SparseMatrix<double> k_;
  std::vector<int> slot_;  // per member entry: its index in k_'s values, or -1 (a held dof)
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver_;
};

}  // namespace simgrad::structure
