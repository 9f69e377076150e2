// Parallel loops over fixed-size blocks of elements.
//
// Blocks have a fixed size that does not depend on the number of threads. Work inside a block is
// sequential, and anything summed across elements is summed per block and then block by block
// in order, so every result is bit-for-bit the same for any thread count.
#pragma once

#include <span>

#include "core/vec.hpp"

namespace simgrad {

inline constexpr Index kBlockSize = 512;

// Number of blocks covering n elements.
inline Index block_count(Index n) { return (n + kBlockSize - 1) / kBlockSize; }

// Sets the number of threads used by all parallel loops (0: the OpenMP default).
void set_thread_count(int threads);
// The number of threads parallel loops use.
int thread_count();

// Whether a loop over n elements runs on one thread: with one thread, or with fewer than two
// blocks per thread, where starting the team costs more than it saves. Results are the same
// bits either way; kernels split their elements into one part per thread only when this is false.
inline bool runs_serially(Index n) {
  const int threads = thread_count();
  return threads == 1 || block_count(n) < 2 * threads;
}

// Calls body(first, last) for every block [first, last) of [0, n), in parallel across blocks.
template <class Body>
void parallel_for_blocks(Index n, const Body& body) {
  const Index blocks = block_count(n);
  if (runs_serially(n)) {
    for (Index first = 0; first < n; first += kBlockSize) body(first, first + kBlockSize < n ? first + kBlockSize : n);
    return;
  }
#pragma omp parallel for schedule(static)
  for (Index b = 0; b < blocks; ++b) {
    const Index first = b * kBlockSize;
    const Index last = first + kBlockSize < n ? first + kBlockSize : n;
    body(first, last);
  }
}

// Calls body(sweep, first, last) for every block of [0, n), sweep after sweep (sweep s + 1
// starts once every block of sweep s is done), in one parallel region: a barrier between sweeps
// instead of a team started for each. Blocks go to threads as parallel_for_blocks gives them,
// so each thread keeps its part of the data in its cache from sweep to sweep.
template <class Body>
void parallel_sweeps(Index n, int sweeps, const Body& body) {
  const Index blocks = block_count(n);
  if (runs_serially(n)) {
    for (int sweep = 0; sweep < sweeps; ++sweep)
      for (Index first = 0; first < n; first += kBlockSize) body(sweep, first, first + kBlockSize < n ? first + kBlockSize : n);
    return;
  }
#pragma omp parallel
  for (int sweep = 0; sweep < sweeps; ++sweep) {
#pragma omp for schedule(static)
    for (Index b = 0; b < blocks; ++b) {
      const Index first = b * kBlockSize;
      const Index last = first + kBlockSize < n ? first + kBlockSize : n;
      body(sweep, first, last);
    }
  }
}

// Calls body(block, first, last) for every block, in parallel; for per-block partial results.
template <class Body>
void parallel_for_indexed_blocks(Index n, const Body& body) {
  const Index blocks = block_count(n);
  if (runs_serially(n)) {
    for (Index b = 0; b < blocks; ++b) body(b, b * kBlockSize, (b + 1) * kBlockSize < n ? (b + 1) * kBlockSize : n);
    return;
  }
#pragma omp parallel for schedule(static)
  for (Index b = 0; b < blocks; ++b) {
    const Index first = b * kBlockSize;
    const Index last = first + kBlockSize < n ? first + kBlockSize : n;
    body(b, first, last);
  }
}

// Sets every value to x, in parallel.
void fill(std::span<double> values, double x);
// Copies from into to (the same size), in parallel.
void copy(std::span<const double> from, std::span<double> to);
// The sum of squares of the values: per-block partial sums added in block order, so the same
// bits for any thread count.
double sum_of_squares(std::span<const double> values);

}  // namespace simgrad
