// The fixed-pattern sparse LU against a dense LU with partial pivoting: solves and transposed
// solves of non-symmetric matrices with a symmetric pattern (a 2D grid's neighbours), refactorised
// with new values; and the pattern errors.
#include "core/sparse_lu.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/rng.hpp"

namespace simgrad {
namespace {

// The pattern of an nx x ny grid's 9-point neighbourhoods, in compressed columns.
void grid_pattern(int nx, int ny, std::vector<Index>& start, std::vector<Index>& rows) {
  start.assign(1, 0);
  rows.clear();
  for (int j = 0; j < nx * ny; ++j) {
    for (int i = 0; i < nx * ny; ++i)
      if (std::abs(i % nx - j % nx) <= 1 && std::abs(i / nx - j / nx) <= 1) rows.push_back(i);
    start.push_back(static_cast<Index>(rows.size()));
  }
}

TEST(SparseLu, SolvesAndTransposedSolvesMatchDenseAcrossRefactorisations) {
  std::vector<Index> start, rows;
  grid_pattern(7, 5, start, rows);
  const Index n = 35;
  SparseLu lu;
  lu.analyse(n, start, rows);
  EXPECT_GE(lu.factor_entries(), static_cast<Index>(rows.size()));
  for (std::uint64_t round = 0; round < 3; ++round) {
    // Non-symmetric values, diagonally dominant so that no pivoting is needed.
    Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(n, n);
    for (Index j = 0; j < n; ++j)
      for (Index p = start[j]; p < start[j + 1]; ++p) {
        const Index i = rows[p];
        const double value = i == j ? 12.0 + uniform01(round, 1, p) : uniform01(round, 2, p) - 0.5;
        lu.values()[lu.position(i, j)] = value;
        dense(i, j) = value;
      }
    ASSERT_TRUE(lu.factorize());
    std::vector<double> b(static_cast<std::size_t>(n)), bt(static_cast<std::size_t>(n));
    Eigen::VectorXd rhs(n);
    for (Index i = 0; i < n; ++i) rhs[i] = b[i] = bt[i] = uniform01(round, 3, static_cast<std::uint64_t>(i)) - 0.5;
    lu.solve(b);
    lu.solve_transposed(bt);
    const Eigen::VectorXd x = dense.partialPivLu().solve(rhs);
    const Eigen::VectorXd xt = dense.transpose().partialPivLu().solve(rhs);
    for (Index i = 0; i < n; ++i) {
      EXPECT_NEAR(b[i], x[i], 1e-13) << "round " << round << " entry " << i;
      EXPECT_NEAR(bt[i], xt[i], 1e-13) << "round " << round << " entry " << i;
    }
  }
}

TEST(SparseLu, ReportsAZeroPivot) {
  std::vector<Index> start, rows;
  grid_pattern(2, 2, start, rows);
  SparseLu lu;
  lu.analyse(4, start, rows);
  EXPECT_FALSE(lu.factorize());  // all zero
}

TEST(SparseLu, RejectsAPatternWithoutDiagonalOrSymmetry) {
  SparseLu lu;
  const std::vector<Index> no_diagonal_start{0, 1, 2}, no_diagonal_rows{1, 0};
  EXPECT_THROW(lu.analyse(2, no_diagonal_start, no_diagonal_rows), std::invalid_argument);
  const std::vector<Index> one_sided_start{0, 2, 3}, one_sided_rows{0, 1, 1};
  EXPECT_THROW(lu.analyse(2, one_sided_start, one_sided_rows), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad
