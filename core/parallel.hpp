// Parallel loops over fixed-size blocks of elements.
//
// Blocks have a fixed size that does not depend on the number of threads. Work inside a block is
// sequential, and anything summed across elements is summed per block and then block by block
// in order, so every result is bit-for-bit the same for any thread count.
//
// The loops run on OpenMP by default. A host with threads of its own (a game engine's job
// system) can take them instead: set_job_system() hands this thread's parallel loops to the
// host's parallel-for, and since every loop's tasks are independent and combined in a fixed
// order, the results are the same bits either way.
#pragma once

#include <span>

#include "core/vec.hpp"

namespace simgrad {

inline constexpr Index kBlockSize = 512;

// Number of blocks covering n elements.
inline Index block_count(Index n) { return (n + kBlockSize - 1) / kBlockSize; }

// A host's job system: run(context, count, task, task_data) calls task(task_data, i) once for
// every i in [0, count), on any of its threads, and returns once all have finished; `threads`
// is how many it runs at once.
struct JobSystem {
  void (*run)(void* context, int count, void (*task)(void* task_data, int index), void* task_data) = nullptr;
  void* context = nullptr;
  int threads = 1;
};

// Hands this thread's parallel loops to `jobs` (nullptr: OpenMP again). Thread-local: no other
// thread, and no OpenMP setting, changes. `jobs` must outlive its use.
void set_job_system(const JobSystem* jobs);
// This thread's job system, or nullptr for OpenMP.
const JobSystem* job_system();

// Sets the number of threads used by all parallel loops (0: the OpenMP default).
void set_thread_count(int threads);
// The number of threads parallel loops use: the job system's, or OpenMP's; 1 inside a task a
// job system runs (loops nested in a task run serially).
int thread_count();

// For its lifetime, this thread's loops run on `threads` OpenMP threads (0: all cores), or on
// `jobs` where given; then as before. A library call made for a host with settings of its own.
class ThreadScope {
 public:
  explicit ThreadScope(int threads, const JobSystem* jobs = nullptr);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  const JobSystem* saved_jobs_;
  int saved_threads_;
};

// Whether a loop over n elements runs on one thread: with one thread, or with fewer than two
// blocks per thread, where starting the team costs more than it saves. Results are the same
// bits either way; kernels split their elements into one part per thread only when this is false.
inline bool runs_serially(Index n) {
  const int threads = thread_count();
  return threads == 1 || block_count(n) < 2 * threads;
}

namespace detail {
// Runs count tasks on the job system: task(i) through a trampoline that keeps the first
// exception (to rethrow on the calling thread, never through the host's code) and marks the
// worker as inside a task.
void run_on_job_system(const JobSystem& jobs, int count, void (*task)(const void* body, int index), const void* body);
}  // namespace detail

// Calls task(i) for every i in [0, count), in parallel: on this thread's job system, else on
// OpenMP with a static schedule, or a dynamic one (one index at a time) when `dynamic`.
template <class Task>
void parallel_tasks(int count, const Task& task, bool dynamic = false) {
  if (const JobSystem* jobs = job_system()) {
    detail::run_on_job_system(*jobs, count, [](const void* body, int i) { (*static_cast<const Task*>(body))(i); }, &task);
    return;
  }
  if (dynamic) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < count; ++i) task(i);
  } else {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < count; ++i) task(i);
  }
}

// Calls task(part) for every part in [0, parts), each on a thread of its own (OpenMP: one part
// per thread of a team of `parts`), so that a part's data stays in one thread's cache.
template <class Task>
void parallel_parts(int parts, const Task& task) {
  if (job_system() != nullptr) {
    parallel_tasks(parts, task);
    return;
  }
#pragma omp parallel for schedule(static, 1) num_threads(parts)
  for (int part = 0; part < parts; ++part) task(part);
}

// Calls body(block, first, last) for every block, in parallel; for per-block partial results.
template <class Body>
void parallel_for_indexed_blocks(Index n, const Body& body) {
  const Index blocks = block_count(n);
  if (runs_serially(n)) {
    for (Index b = 0; b < blocks; ++b) body(b, b * kBlockSize, (b + 1) * kBlockSize < n ? (b + 1) * kBlockSize : n);
    return;
  }
  parallel_tasks(static_cast<int>(blocks), [&](int b) {
    const Index first = b * kBlockSize;
    const Index last = first + kBlockSize < n ? first + kBlockSize : n;
    body(b, first, last);
  });
}

// Calls body(first, last) for every block [first, last) of [0, n), in parallel across blocks.
template <class Body>
void parallel_for_blocks(Index n, const Body& body) {
  parallel_for_indexed_blocks(n, [&](Index, Index first, Index last) { body(first, last); });
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
  if (job_system() != nullptr) {  // a join between sweeps instead of a barrier
    for (int sweep = 0; sweep < sweeps; ++sweep)
      parallel_for_indexed_blocks(n, [&](Index, Index first, Index last) { body(sweep, first, last); });
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

// Sets every value to x, in parallel.
void fill(std::span<double> values, double x);
// Copies from into to (the same size), in parallel.
void copy(std::span<const double> from, std::span<double> to);
// The sum of squares of the values: per-block partial sums added in block order, so the same
// bits for any thread count.
double sum_of_squares(std::span<const double> values);

}  // namespace simgrad
