// A sparse LU factorisation for a sequence of matrices that share one structurally symmetric
// pattern (a mesh's stiffness pattern): the ordering and the factor's pattern are computed once,
// each new set of values is refactorised in place, and neither the refactorisation nor the
// solves allocate, so an implicit integrator can run one inside every step.
//
// The rows and columns are permuted by approximate minimum degree (fewer fill-ins), and the
// factorisation has no pivoting: it suits matrices that are diagonally dominant or close to
// symmetric positive definite (M + dt^2 K + dt C), and reports a zero or non-finite pivot. With
// the symmetric pattern, L's pattern is that of a Cholesky factor and U's is its transpose: both
// share one index array. Rows are computed one at a time by two sparse triangular solves over
// the elimination tree's reach (the up-looking algorithm of Davis, "Direct Methods for Sparse
// Linear Systems", chapter 4, with L and U in place of one Cholesky factor). A^T x = b is solved
// with the same factors (U^T, then L^T), as an adjoint needs. Deterministic: a fixed order of
// operations, one thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/field.hpp"

namespace simgrad {

class SparseLu {
 public:
  // Sets the pattern of an n x n matrix in compressed columns (column j's rows in
  // rows[column_start[j] .. column_start[j + 1]), ascending). The pattern must be structurally
  // symmetric and include the diagonal (std::invalid_argument otherwise). Allocates everything
  // later calls use.
  void analyse(Index n, std::span<const Index> column_start, std::span<const Index> rows);

  Index size() const { return n_; }
  // The matrix's values, in the pattern's order: fill them before factorize().
  std::span<double> values() { return values_; }
  // Where entry (row, column) sits in values(), or -1 when the pattern lacks it.
  Index position(Index row, Index column) const;
  // Nonzeros of L and U together (their diagonal included), for reports.
  Index factor_entries() const { return static_cast<Index>(factor_rows_.size()) * 2 + n_; }

  // Factorises the current values; false when a pivot is zero or not finite.
  bool factorize();
  // Solves A x = b in place (b becomes x).
  void solve(std::span<double> b);
  // Solves A^T x = b in place.
  void solve_transposed(std::span<double> b);

 private:
  // The rows of the permuted column k above the diagonal reached through the elimination tree,
  // in topological order, in reach_[top..n); returns top.
  Index reach(Index k);
  // b permuted into work_ (work_[new] = b[old]), and back.
  void permute_in(std::span<const double> b);
  void permute_out(std::span<double> b) const;

  Index n_ = 0;
  std::vector<Index> column_start_, rows_;    // the pattern as given
  std::vector<double> values_;                // the matrix's values in that order
  std::vector<Index> new_of_old_;             // the ordering
  std::vector<Index> permuted_start_, permuted_rows_;  // the permuted pattern C = P A P^T
  std::vector<Index> source_, source_transposed_;      // per entry of C: where C(i, k) and C(k, i) sit in values_
  std::vector<Index> parent_;                  // elimination tree of C
  // An entry of L below its unit diagonal and the entry of U at the transposed place (kept
  // together: the factorisation updates both from the same row index); and the two work vectors
  // of a row, likewise.
  struct Pair {
    double lower, upper;
  };
  std::vector<Index> factor_start_;            // column j of L (and row j of U) in [start[j], start[j + 1])
  std::vector<std::int32_t> factor_rows_;      // L's row (U's column) of each entry
  std::vector<Pair> factor_;
  std::vector<double> diagonal_;               // U's diagonal
  // Work space of the factorisation (pairs: U's column, L's row) and of the solves.
  std::vector<Index> reach_, mark_, next_;
  std::vector<Pair> row_work_;
  std::vector<double> work_;
};

}  // namespace simgrad
