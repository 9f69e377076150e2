#include "core/band_scatter.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/vector_clones.hpp"

namespace simgrad {

namespace {

// out += in and in = 0 over n values: a window's row gathered into its target and cleared.
SIMGRAD_VECTOR_CLONES void add_and_clear(int n, double* __restrict out, double* __restrict in) {
  for (int i = 0; i < n; ++i) {
    out[i] += in[i];
    in[i] = 0.0;
  }
}

}  // namespace

void BandScatter::prepare(int rows, int reach, std::span<const Target> targets) {
  if (targets.size() > static_cast<std::size_t>(kMaxTargets)) throw std::logic_error("BandScatter: too many targets");
  const int count = (rows + kBandRows - 1) / kBandRows;
  lattice_rows_ = rows;
  bands_.resize(static_cast<std::size_t>(count));
  std::size_t total = 0;
  for (int b = 0; b < count; ++b)
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const Target& target = targets[t];
      Band::Window& w = bands_[static_cast<std::size_t>(b)].windows_[t];
      int first = b * kBandRows - reach;
      int last = std::min(rows, (b + 1) * kBandRows) - 1 + reach;  // inclusive
      if (target.wrap && last - first + 1 >= target.rows) {
        first = 0;
        last = target.rows - 1;
      } else if (!target.wrap) {
        first = std::max(0, first);
        last = std::min(target.rows - 1, last);
      }
      w.first_row = first;
      w.rows = std::max(0, last - first + 1);
      w.columns = target.columns;
      w.wrap = target.wrap;
      w.offset = static_cast<Index>(first) * target.columns;
      w.size = static_cast<Index>(target.rows) * target.columns;
      total += static_cast<std::size_t>(w.rows) * static_cast<std::size_t>(w.columns);
    }
  // The windows are zero between scatters (gather zeroes what it adds), whatever their layout.
  storage_.resize(total);
  std::size_t at = 0;
  for (Band& band : bands_)
    for (std::size_t t = 0; t < targets.size(); ++t) {
      band.windows_[t].data = storage_.data() + at;
      at += static_cast<std::size_t>(band.windows_[t].rows) * static_cast<std::size_t>(band.windows_[t].columns);
    }
}

void BandScatter::exchange_windows(std::span<const Target> targets) {
  // Every process walks every band's windows in the same order (band, target, row), so the
  // transfers between two processes are listed alike on both sides.
  sends_.clear();
  receives_.clear();
  const int me = slabs_->process();
  for (std::size_t b = 0; b < bands_.size(); ++b) {
    const int from = slabs_->owner(static_cast<int>(b) * kBandRows, lattice_rows_);
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const Band::Window& w = bands_[b].windows_[t];
      const int rows = targets[t].rows;
      if (rows < slabs_->rows()) throw std::logic_error("BandScatter: a split scatter's target has fewer rows than the slabs");
      int to = -1, run_start = 0;
      auto flush = [&](int end) {
        if (to < 0 || (from != me && to != me) || from == to) return;
        RowSlabs::Transfer transfer{from == me ? to : from,
                                    w.data + static_cast<std::size_t>(run_start) * static_cast<std::size_t>(w.columns),
                                    static_cast<std::size_t>(end - run_start) * static_cast<std::size_t>(w.columns)};
        (from == me ? sends_ : receives_).push_back(transfer);
      };
      for (int local = 0; local < w.rows; ++local) {
        const int owner = slabs_->owner(((w.first_row + local) % rows + rows) % rows, rows);
        if (owner != to) {
          flush(local);
          to = owner;
          run_start = local;
        }
      }
      flush(w.rows);
    }
  }
  slabs_->exchange(sends_, receives_);
  for (const RowSlabs::Transfer& t : sends_) std::fill(t.data, t.data + t.count, 0.0);
}

void BandScatter::gather(std::span<const Target> targets) {
  // One task per (row, target), row by row: rows are independent, each sums its bands in band
  // order. Split statically, a thread gathers the rows its bands mostly wrote (bands are split
  // the same way), still in its cache.
  const int count = static_cast<int>(targets.size());
  // The targets' rows here: all of them, or this process's.
  auto own_rows = [&](const Target& target) { return rows_here(slabs_, target.rows); };
  const int first_row = slabs_ ? slabs_->own().first : 0;
  int rows = 0;
  for (const Target& target : targets) rows = std::max(rows, own_rows(target).last - first_row);
  const int tasks = rows * count;
  auto row_task = [&](int task) {
    const std::size_t t = static_cast<std::size_t>(task % count);
    const Target& target = targets[t];
    const int row = first_row + task / count;
    if (row >= own_rows(target).last) return;
    double* out = target.field.data() + static_cast<std::size_t>(row) * static_cast<std::size_t>(target.columns);
    for (const Band& band : bands_) {
      const Band::Window& w = band.windows_[t];
      int local = row - w.first_row;
      if (w.wrap) {
        if (local < 0) local += target.rows;
        else if (local >= target.rows) local -= target.rows;
      }
      if (local < 0 || local >= w.rows) continue;
      add_and_clear(target.columns, out, w.data + static_cast<std::size_t>(local) * static_cast<std::size_t>(w.columns));
    }
  };
  if (thread_count() == 1) {
    for (int task = 0; task < tasks; ++task) row_task(task);
  } else {
    parallel_tasks(tasks, row_task);
  }
}

}  // namespace simgrad
