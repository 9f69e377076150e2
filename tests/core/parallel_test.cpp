#include "core/parallel.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace simgrad
