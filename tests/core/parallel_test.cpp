#include "core/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace simgrad {
namespace {

// Sweeps of a three-point smoothing between two buffers: each sweep reads what the previous one
// wrote across block edges, so a sweep started before the last one ended would read stale values.
std::vector<double> smoothed(Index n, int sweeps, int threads) {
  set_thread_count(threads);
  std::vector<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n), 0.0);
  for (Index k = 0; k < n; ++k) a[static_cast<std::size_t>(k)] = static_cast<double>((k * 7919) % 101);
  parallel_sweeps(n, sweeps, [&](int sweep, Index first, Index last) {
    const std::vector<double>& from = sweep % 2 == 0 ? a : b;
    std::vector<double>& to = sweep % 2 == 0 ? b : a;
    for (Index k = first; k < last; ++k) {
      const std::size_t i = static_cast<std::size_t>(k);
      const double left = k > 0 ? from[i - 1] : 0.0, right = k + 1 < n ? from[i + 1] : 0.0;
      to[i] = 0.25 * left + 0.5 * from[i] + 0.25 * right;
    }
  });
  set_thread_count(0);
  return sweeps % 2 == 0 ? a : b;
}

TEST(Parallel, SweepsSeeTheWholePreviousSweepForAnyThreadCount) {
  const Index n = 7 * kBlockSize + 13;
  const std::vector<double> serial = smoothed(n, 9, 1);
  // The serial reference against a direct loop.
  std::vector<double> x(static_cast<std::size_t>(n));
  for (Index k = 0; k < n; ++k) x[static_cast<std::size_t>(k)] = static_cast<double>((k * 7919) % 101);
  for (int sweep = 0; sweep < 9; ++sweep) {
    std::vector<double> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
      y[i] = 0.25 * (i > 0 ? x[i - 1] : 0.0) + 0.5 * x[i] + 0.25 * (i + 1 < x.size() ? x[i + 1] : 0.0);
    x = y;
  }
  EXPECT_EQ(serial, x);
  for (int threads : {2, 4}) EXPECT_EQ(smoothed(n, 9, threads), serial) << threads << " threads";
}

// A host's job system as an engine would have one: `threads` std::threads share the indices
// (i, i + threads, ...), each index once; it counts the loops it is given.
struct ThreadJobs {
  int threads = 3;
  std::atomic<int> loops{0};

  static void run(void* context, int count, void (*task)(void*, int), void* task_data) {
    auto& jobs = *static_cast<ThreadJobs*>(context);
    ++jobs.loops;
    std::vector<std::thread> workers;
    const int threads = jobs.threads;
    for (int w = 0; w < threads; ++w)
      workers.emplace_back([=] {
        for (int i = w; i < count; i += threads) task(task_data, i);
      });
    for (std::thread& t : workers) t.join();
  }
};

TEST(Parallel, AHostJobSystemRunsTheLoopsWithTheSameBits) {
  const Index n = 7 * kBlockSize + 13;
  const std::vector<double> openmp = smoothed(n, 9, 2);
  ThreadJobs host;
  const JobSystem jobs{ThreadJobs::run, &host, host.threads};
  set_job_system(&jobs);
  EXPECT_EQ(thread_count(), 3);
  const std::vector<double> hosted = smoothed(n, 9, 2);
  std::vector<double> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 1.0 / static_cast<double>(i + 1);
  const double hosted_sum = sum_of_squares(values);
  set_job_system(nullptr);
  EXPECT_EQ(hosted, openmp);
  EXPECT_EQ(hosted_sum, sum_of_squares(values));
  EXPECT_EQ(host.loops, 9 + 1);  // a loop per sweep, and the sum's
}

TEST(Parallel, TasksOnAJobSystemRunOnceEachNestSeriallyAndPassExceptionsBack) {
  ThreadJobs host;
  const JobSystem jobs{ThreadJobs::run, &host, host.threads};
  set_job_system(&jobs);
  std::vector<std::atomic<int>> runs(100);
  std::atomic<int> nested_threads{0};
  parallel_tasks(100, [&](int i) {
    ++runs[static_cast<std::size_t>(i)];
    nested_threads += thread_count();  // 1 inside a task: nested loops do not fan out again
  });
  for (const auto& r : runs) EXPECT_EQ(r, 1);
  EXPECT_EQ(nested_threads, 100);
  EXPECT_THROW(parallel_tasks(10, [](int i) {
                 if (i == 7) throw std::runtime_error("task 7");
               }),
               std::runtime_error);
  set_job_system(nullptr);
  EXPECT_EQ(host.loops, 2);
  // Another thread never sees this thread's job system.
  set_job_system(&jobs);
  const JobSystem* seen = &jobs;
  std::thread([&] { seen = job_system(); }).join();
  set_job_system(nullptr);
  EXPECT_EQ(seen, nullptr);
}

}  // namespace
}  // namespace simgrad
