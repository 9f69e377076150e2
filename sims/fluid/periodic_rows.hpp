// Walking a row-major grid row by row, for loops over cells of grids periodic along x: a block
// of cells [first, last) as pieces of rows, and a row's columns with the first and last (whose
// neighbours wrap) apart from the inner ones, whose neighbours are contiguous, so that loop
// vectorises.
#pragma once

#include <algorithm>

#include "core/vec.hpp"

namespace simgrad::fluid {

// Calls body(j, i0, i1) for the pieces of rows that make up the cells [first, last) of a
// row-major grid nx cells wide.
template <class Body>
inline void for_row_pieces(int nx, Index first, Index last, const Body& body) {
  for (Index c = first; c < last;) {
    const int j = static_cast<int>(c / nx), i0 = static_cast<int>(c % nx);
    const int i1 = static_cast<int>(std::min<Index>(nx, i0 + (last - c)));
    body(j, i0, i1);
    c += i1 - i0;
  }
}

// Calls one(i, left, right) for i in [i0, i1) of a periodic row nx wide, left and right the
// neighbours' columns: the first and last columns apart, so the loop over the inner ones
// vectorises.
template <class One>
inline void along_periodic_row(int nx, int i0, int i1, const One& one) {
  int i = i0;
  if (i == 0 && i < i1) {
    one(0, nx - 1, nx > 1 ? 1 : 0);
    ++i;
  }
  const int inner_end = std::min(i1, nx - 1);
  for (; i < inner_end; ++i) one(i, i - 1, i + 1);
  if (i == nx - 1 && i < i1) {
    one(nx - 1, nx - 2, 0);
    ++i;
  }
}

}  // namespace simgrad::fluid
