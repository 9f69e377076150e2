#include "core/sparse_lu.hpp"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>

namespace simgrad {

Index SparseLu::position(Index row, Index column) const {
  const auto first = rows_.begin() + column_start_[column], last = rows_.begin() + column_start_[column + 1];
  const auto it = std::lower_bound(first, last, row);
  return it != last && *it == row ? it - rows_.begin() : -1;
}

void SparseLu::analyse(Index n, std::span<const Index> column_start, std::span<const Index> rows) {
  n_ = n;
  column_start_.assign(column_start.begin(), column_start.end());
  rows_.assign(rows.begin(), rows.end());
  values_.assign(rows_.size(), 0.0);
  for (Index j = 0; j < n; ++j) {
    if (position(j, j) < 0) throw std::invalid_argument("sparse LU: the pattern lacks diagonal entry " + std::to_string(j));
    for (Index p = column_start_[j]; p < column_start_[j + 1]; ++p)
      if (position(j, rows_[p]) < 0)
        throw std::invalid_argument("sparse LU: the pattern is not symmetric at (" + std::to_string(rows_[p]) + ", " +
                                    std::to_string(j) + ")");
  }

  // Approximate minimum degree on the pattern.
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> pattern(static_cast<int>(n), static_cast<int>(n));
  {
    std::vector<Eigen::Triplet<double, int>> entries;
    entries.reserve(rows_.size());
    for (Index j = 0; j < n; ++j)
      for (Index p = column_start_[j]; p < column_start_[j + 1]; ++p)
        entries.emplace_back(static_cast<int>(rows_[p]), static_cast<int>(j), 1.0);
    pattern.setFromTriplets(entries.begin(), entries.end());
  }
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> old_of_new;
  Eigen::AMDOrdering<int>()(pattern, old_of_new);
  new_of_old_.assign(static_cast<std::size_t>(n), 0);
  for (Index k = 0; k < n; ++k) new_of_old_[old_of_new.indices()[k]] = k;

  // C = P A P^T in compressed columns, rows ascending, with each entry's sources in values_.
  permuted_start_.assign(static_cast<std::size_t>(n + 1), 0);
  for (Index j = 0; j < n; ++j) permuted_start_[new_of_old_[j] + 1] = column_start_[j + 1] - column_start_[j];
  for (Index k = 0; k < n; ++k) permuted_start_[k + 1] += permuted_start_[k];
  permuted_rows_.assign(rows_.size(), 0);
  source_.assign(rows_.size(), 0);
  source_transposed_.assign(rows_.size(), 0);
  std::vector<std::pair<Index, Index>> column;  // (new row, source)
  for (Index j = 0; j < n; ++j) {
    column.clear();
    for (Index p = column_start_[j]; p < column_start_[j + 1]; ++p) column.emplace_back(new_of_old_[rows_[p]], p);
    std::sort(column.begin(), column.end());
    Index q = permuted_start_[new_of_old_[j]];
    for (const auto& [row, p] : column) {
      permuted_rows_[q] = row;
      source_[q] = p;
      source_transposed_[q] = position(j, rows_[p]);
      ++q;
    }
  }

  // The elimination tree (Liu's algorithm with path compression), from the upper part of C.
  parent_.assign(static_cast<std::size_t>(n), -1);
  std::vector<Index> ancestor(static_cast<std::size_t>(n), -1);
  for (Index k = 0; k < n; ++k)
    for (Index p = permuted_start_[k]; p < permuted_start_[k + 1]; ++p) {
      Index i = permuted_rows_[p];
      while (i != -1 && i < k) {
        const Index up = ancestor[i];
        ancestor[i] = k;
        if (up == -1) parent_[i] = k;
        i = up;
      }
    }

  // The factor's pattern: row k of L holds the reach of column k, so counting the reaches
  // gives L's column counts.
  reach_.assign(static_cast<std::size_t>(n), 0);
  mark_.assign(static_cast<std::size_t>(n), -1);
  std::vector<Index> counts(static_cast<std::size_t>(n), 0);
  for (Index k = 0; k < n; ++k)
    for (Index t = reach(k); t < n; ++t) ++counts[reach_[t]];
  factor_start_.assign(static_cast<std::size_t>(n + 1), 0);
  for (Index j = 0; j < n; ++j) factor_start_[j + 1] = factor_start_[j] + counts[j];
  if (n > INT32_MAX) throw std::invalid_argument("sparse LU: more than 2^31 - 1 rows");
  factor_rows_.assign(static_cast<std::size_t>(factor_start_[n]), 0);
  factor_.assign(factor_rows_.size(), Pair{0.0, 0.0});
  diagonal_.assign(static_cast<std::size_t>(n), 0.0);
  next_.assign(static_cast<std::size_t>(n), 0);
  work_.assign(static_cast<std::size_t>(n), 0.0);
  row_work_.assign(static_cast<std::size_t>(n), Pair{0.0, 0.0});
  std::fill(mark_.begin(), mark_.end(), -1);
}

Index SparseLu::reach(Index k) {
  Index top = n_;
  mark_[k] = k;
  for (Index p = permuted_start_[k]; p < permuted_start_[k + 1]; ++p) {
    Index i = permuted_rows_[p];
    if (i > k) continue;
    // Up the tree to a node already reached, then the path onto the stack in reverse.
    Index length = 0;
    for (; mark_[i] != k; i = parent_[i]) {
      reach_[length++] = i;
      mark_[i] = k;
    }
    while (length > 0) reach_[--top] = reach_[--length];
  }
  return top;
}

bool SparseLu::factorize() {
  // Marks are stamped with the row number: clear those of the previous factorisation (each
  // row's pass returns the work pairs to zero).
  std::fill(mark_.begin(), mark_.end(), -1);
  std::fill(row_work_.begin(), row_work_.end(), Pair{0.0, 0.0});
  for (Index k = 0; k < n_; ++k) {
    // Per row i < k: C(i, k) (for U's column, in .upper) and C(k, i) (for L's row, in .lower).
    double pivot = 0.0;
    for (Index p = permuted_start_[k]; p < permuted_start_[k + 1]; ++p) {
      const Index i = permuted_rows_[p];
      if (i == k) pivot = values_[source_[p]];
      if (i >= k) continue;
      row_work_[i] = {values_[source_transposed_[p]], values_[source_[p]]};
    }
    next_[k] = factor_start_[k];
    // L[:k,:k] u = C[:k,k] and l U[:k,:k] = C[k,:k], both over the reach in topological order.
    for (Index t = reach(k); t < n_; ++t) {
      const Index i = reach_[t];
      const double u = row_work_[i].upper;
      const double l = row_work_[i].lower / diagonal_[i];
      row_work_[i] = {0.0, 0.0};
      for (Index p = factor_start_[i]; p < next_[i]; ++p) {
        Pair& w = row_work_[factor_rows_[p]];
        w.upper -= factor_[p].lower * u;
        w.lower -= factor_[p].upper * l;
      }
      pivot -= l * u;
      const Index q = next_[i]++;
      factor_rows_[q] = static_cast<std::int32_t>(k);
      factor_[q] = {l, u};
    }
    if (pivot == 0.0 || !std::isfinite(pivot)) return false;
    diagonal_[k] = pivot;
  }
  return true;
}

void SparseLu::permute_in(std::span<const double> b) {
  for (Index i = 0; i < n_; ++i) work_[new_of_old_[i]] = b[i];
}

void SparseLu::permute_out(std::span<double> b) const {
  for (Index i = 0; i < n_; ++i) b[i] = work_[new_of_old_[i]];
}

void SparseLu::solve(std::span<double> b) {
  permute_in(b);
  for (Index j = 0; j < n_; ++j)
    for (Index p = factor_start_[j]; p < factor_start_[j + 1]; ++p) work_[factor_rows_[p]] -= factor_[p].lower * work_[j];
  for (Index j = n_; j-- > 0;) {
    double x = work_[j];
    for (Index p = factor_start_[j]; p < factor_start_[j + 1]; ++p) x -= factor_[p].upper * work_[factor_rows_[p]];
    work_[j] = x / diagonal_[j];
  }
  permute_out(b);
}

void SparseLu::solve_transposed(std::span<double> b) {
  permute_in(b);
  for (Index j = 0; j < n_; ++j) {
    const double x = work_[j] / diagonal_[j];
    work_[j] = x;
    for (Index p = factor_start_[j]; p < factor_start_[j + 1]; ++p) work_[factor_rows_[p]] -= factor_[p].upper * x;
  }
  for (Index j = n_; j-- > 0;) {
    double x = work_[j];
    for (Index p = factor_start_[j]; p < factor_start_[j + 1]; ++p) x -= factor_[p].lower * work_[factor_rows_[p]];
    work_[j] = x;
  }
  permute_out(b);
}

}  // namespace simgrad
