// A deterministic parallel scatter-add for adjoints whose contributions land near their source:
// the adjoint of sampling a field at traced-back points adds each sample's adjoint to the four
// lattice values around the point it sampled, which lies within a bounded number of rows of the
// sample (the trace moves at most dt max|velocity|).
//
// Samples are split into bands of kBandRows sample rows, a fixed split that does not depend on
// the number of threads. Pass 1 runs the bands in parallel; each adds its samples' contributions,
// in sample order, to a private window of every target covering the rows its samples can reach.
// Pass 2 adds the windows to the targets row by row, band by band in order, and zeroes them for
// the next scatter (one pass over the windows instead of two). Every target value thus receives
// the same sums in the same order for any thread count; no atomics.
//
// Split over processes in slabs of whole bands (core/row_slabs.hpp), a process runs pass 1 for
// its own bands, sends the rows of their windows that fall in others' slabs to their owners, and
// runs pass 2 for its own rows with every band's window rows there: each of its rows receives
// the whole scatter's sums in the whole scatter's order.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "core/parallel.hpp"
#include "core/row_slabs.hpp"
#include "core/vec.hpp"

namespace simgrad {

class BandScatter {
 public:
  static constexpr int kBandRows = 8;
  static constexpr int kMaxTargets = 4;

  // A target: a field of `columns` x `rows` values, row-major; `wrap` when its rows are periodic.
  struct Target {
    std::span<double> field;
    int columns = 0, rows = 0;
    bool wrap = false;
  };

  // A band's private windows, one per target; add() takes a target's index and a flat index
  // into that target.
  class Band {
   public:
    void add(int target, Index index, double value) {
      const Window& w = windows_[target];
      w.data[wrapped(w, index - w.offset)] += value;
    }
    // A target's window as vector code indexes it: flat index k of the target lies at
    // data[k - offset], less `size` where that passes the end and the rows wrap (plus `size`
    // where it falls before the start).
    struct View {
      double* data;
      Index offset, size;
      bool wrap;
    };
    View view(int target) const {
      const Window& w = windows_[target];
      return {w.data, w.offset, w.size, w.wrap};
    }
    // Adds value[m] at index[m], in that order, for a bilinear stencil's four indices ((i0, j0),
    // (i1, j0), (i0, j1), (i1, j1)): each row is wrapped into the window once, not each value.
    void add_square(int target, const Index index[4], const double value[4]) {
      const Window& w = windows_[target];
      const Index across = index[1] - index[0];
      double* row0 = w.data + wrapped(w, index[0] - w.offset);
      double* row1 = w.data + wrapped(w, index[2] - w.offset);
      row0[0] += value[0];
      row0[across] += value[1];
      row1[0] += value[2];
      row1[across] += value[3];
    }

   private:
    friend class BandScatter;
    struct Window {
      double* data = nullptr;
      Index offset = 0, size = 0;  // offset: flat index of the window's first value
      int first_row = 0, rows = 0, columns = 0;
      bool wrap = false;
    };
    // A target index less the window's offset, brought into the window where the rows wrap.
    static Index wrapped(const Window& w, Index local) {
      if (w.wrap) {
        if (local < 0) local += w.size;
        else if (local >= w.size) local -= w.size;
      }
      return local;
    }
    Window windows_[kMaxTargets];
  };

  // Splits the scatters over processes (see above; null: the whole lattice here). The lattices
  // and targets must have the slabs' rows or more (RowSlabs::slab: the rows past the slabs' are
  // the last process's), and the slabs' bands must be kBandRows rows.
  void split(const RowSlabs* slabs) { slabs_ = slabs; }

  // Runs body(band, first, last) over the samples [first, last) of each band of a lattice with
  // `columns` samples a row and `rows` rows (in parallel across bands), then adds the windows to
  // the targets. A sample in row r may reach target rows r - reach .. r + reach. Split, the
  // bands and target rows are this process's, and every process must pass the same reach.
  template <class Body>
  void scatter(int columns, int rows, int reach, std::span<const Target> targets, const Body& body) {
    prepare(rows, reach, targets);
    const int first = slabs_ ? slabs_->first_band() : 0;
    const int count = (slabs_ ? slabs_->last_band(rows) : static_cast<int>(bands_.size())) - first;
    auto run = [&](int k) {
      const int b = first + k;
      Band& band = bands_[static_cast<std::size_t>(b)];
      const int last_row = std::min(rows, (b + 1) * kBandRows);
      body(band, static_cast<Index>(b) * kBandRows * columns, static_cast<Index>(last_row) * columns);
    };
    if (thread_count() == 1 || count < 2) {
      for (int k = 0; k < count; ++k) run(k);
    } else {
      parallel_tasks(count, run);
    }
    if (slabs_) exchange_windows(targets);
    gather(targets);
  }

 private:
  // Sizes the bands' windows for a lattice of `rows` sample rows.
  void prepare(int rows, int reach, std::span<const Target> targets);
  // Pass 2: adds the windows to the targets (split: to this process's rows) and zeroes them.
  void gather(std::span<const Target> targets);
  // Split: sends own bands' window rows in others' slabs to their owners (then zeroes them) and
  // receives the others' window rows in this process's slab.
  void exchange_windows(std::span<const Target> targets);

  std::vector<Band> bands_;
  int lattice_rows_ = 0;  // the latest scatter's sample rows
  std::vector<double> storage_;
  const RowSlabs* slabs_ = nullptr;
  std::vector<RowSlabs::Transfer> sends_, receives_;
};

}  // namespace simgrad
