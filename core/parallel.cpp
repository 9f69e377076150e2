#include "core/parallel.hpp"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <vector>

namespace simgrad {

namespace {

// This thread's job system; the marker for a task running on one.
thread_local const JobSystem* t_job_system = nullptr;
thread_local bool t_in_task = false;

}  // namespace

void set_job_system(const JobSystem* jobs) { t_job_system = jobs; }

const JobSystem* job_system() { return t_in_task ? nullptr : t_job_system; }

void set_thread_count(int threads) {
  omp_set_num_threads(threads > 0 ? threads : omp_get_num_procs());
}

int thread_count() {
  if (t_in_task) return 1;
  if (t_job_system != nullptr) return t_job_system->threads > 0 ? t_job_system->threads : 1;
  return omp_get_max_threads();
}

ThreadScope::ThreadScope(int threads, const JobSystem* jobs) : saved_jobs_(job_system()) {
  set_job_system(nullptr);  // OpenMP's own count, not the host's
  saved_threads_ = thread_count();
  set_thread_count(threads);
  set_job_system(jobs);
}

ThreadScope::~ThreadScope() {
  set_job_system(nullptr);
  set_thread_count(saved_threads_);
  set_job_system(saved_jobs_);
}

namespace detail {

void run_on_job_system(const JobSystem& jobs, int count, void (*task)(const void* body, int index), const void* body) {
  struct Call {
    void (*task)(const void*, int);
    const void* body;
    std::mutex mutex;
    std::exception_ptr error;
  } call{task, body, {}, nullptr};
  jobs.run(
      jobs.context, count,
      [](void* data, int i) {
        Call& c = *static_cast<Call*>(data);
        const bool outer = t_in_task;
        t_in_task = true;  // loops inside the task run serially on this worker
        try {
          c.task(c.body, i);
        } catch (...) {
          std::lock_guard lock(c.mutex);
          if (!c.error) c.error = std::current_exception();
        }
        t_in_task = outer;
      },
      &call);
  if (call.error) std::rethrow_exception(call.error);
}

}  // namespace detail

void fill(std::span<double> values, double x) {
  parallel_for_blocks(static_cast<Index>(values.size()), [&](Index first, Index last) {
    std::fill(values.begin() + first, values.begin() + last, x);
  });
}

void copy(std::span<const double> from, std::span<double> to) {
  parallel_for_blocks(static_cast<Index>(from.size()), [&](Index first, Index last) {
    std::copy(from.begin() + first, from.begin() + last, to.begin() + first);
  });
}

double sum_of_squares(std::span<const double> values) {
  const Index n = static_cast<Index>(values.size());
  // Four running sums, combined in a fixed order: a fixed association (so the same result for
  // any thread count) that does not wait on one addition per value.
  auto block_sum = [&](Index first, Index last) {
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    Index i = first;
    for (; i + 4 <= last; i += 4)
      for (int k = 0; k < 4; ++k) s[k] += values[i + k] * values[i + k];
    for (; i < last; ++i) s[0] += values[i] * values[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
  };
  if (runs_serially(n)) {
    // The same sums in the same order as below, without the partials' allocation.
    double total = 0.0;
    for (Index first = 0; first < n; first += kBlockSize) total += block_sum(first, std::min(first + kBlockSize, n));
    return total;
  }
  std::vector<double> partial(static_cast<std::size_t>(block_count(n)), 0.0);
  parallel_for_indexed_blocks(n, [&](Index b, Index first, Index last) { partial[static_cast<std::size_t>(b)] = block_sum(first, last); });
  double total = 0.0;
  for (double s : partial) total += s;
  return total;
}

}  // namespace simgrad
