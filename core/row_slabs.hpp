// A grid split over processes in slabs of rows, every process holding whole-grid arrays.
//
// A grid's kernels index their neighbours (and a semi-Lagrangian trace its foot) by position in
// the whole grid, so a process keeps whole-grid arrays and computes the rows of its slab only;
// before a stage reads across its slab's edges, fill_halo() copies the rows it will read from
// their owners (moved, never added: the same bits everywhere). Rows outside a slab and its halo
// are stale and never read. The slabs are runs of whole bands of rows, so a scatter that splits
// its samples into bands (core/band_scatter.hpp) and a sum taken per band split with them.
//
// The memory does not split (each process holds whole arrays); the work and the traffic do:
// a halo is a few rows, whatever the grid's height.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "core/parallel.hpp"
#include "core/process_split.hpp"

namespace simgrad {

// Rows [first, last) of a grid.
struct RowRun {
  int first = 0, last = 0;
  int count() const { return last - first; }
  bool contains(int row) const { return row >= first && row < last; }
};

// The rows that process `process` of `processes` holds of a grid of `rows` rows: whole bands of
// `band_rows` (the last band may be short), as evenly as bands allow. Throws
// std::invalid_argument when there are more processes than bands.
RowRun slab_of(int rows, int band_rows, int processes, int process);

// The values of rows [first, last) of a row-major field `columns` wide.
template <class T>
std::span<T> rows_of(std::span<T> field, RowRun rows, int columns) {
  const std::size_t width = static_cast<std::size_t>(columns);
  return field.subspan(static_cast<std::size_t>(rows.first) * width, static_cast<std::size_t>(rows.count()) * width);
}

// The rows of a field of `field_rows` rows that the process of `slabs` computes: its own
// (RowSlabs::slab), or all of them on a whole grid (null slabs).
class RowSlabs;
RowRun rows_here(const RowSlabs* slabs, int field_rows);

// A piece of a halo: rows [first, last) (no wrap inside) owned by process `owner`.
struct HaloPiece {
  int owner = 0, first = 0, last = 0;
};

// The rows of process `process`'s halo in a field of `field_rows` rows (the slabs' rows, or more:
// the rows past the last slab are the last process's), `below` rows under its slab and `above`
// over it, wrapping around the field when `wrap` (periodic rows), without its own rows and
// without repeats: pieces of consecutive rows with one owner each, in increasing row order.
// Every process computes every other's, so no one asks who wants what.
std::vector<HaloPiece> halo_pieces(std::span<const RowRun> slabs, int process, int below, int above, int field_rows,
                                   bool wrap);

class RowSlabs : public ProcessSplit {
 public:
  virtual ~RowSlabs() = default;
  int rows() const { return rows_; }
  int band_rows() const { return band_rows_; }
  int process() const { return process_; }
  int processes() const { return static_cast<int>(slabs_.size()); }
  // This process's rows, and process p's.
  RowRun own() const { return slabs_[static_cast<std::size_t>(process_)]; }
  RowRun slab(int p) const { return slabs_[static_cast<std::size_t>(p)]; }
  std::span<const RowRun> slabs() const { return slabs_; }
  // The same in a field of `field_rows` >= rows() rows (the faces between the rows of a grid with
  // closed or open ends have one row more): the rows past rows() are the last process's.
  RowRun slab(int p, int field_rows) const {
    RowRun run = slab(p);
    if (p + 1 == processes()) run.last = field_rows;
    return run;
  }
  RowRun own(int field_rows) const { return slab(process_, field_rows); }
  // The process holding row `row` of a field of `field_rows` rows.
  int owner(int row, int field_rows) const;
  // This process's bands [first_band, last_band) of a field of `field_rows` rows.
  int first_band() const { return own().first / band_rows_; }
  int last_band(int field_rows) const { return (own(field_rows).last + band_rows_ - 1) / band_rows_; }
  int last_band() const { return last_band(rows_); }

  // Copies into `field` (rows of `columns` values: rows() of them or more, see slab) the rows of
  // this process's halo (halo_pieces; `wrap`: periodic rows) from their owners. Every process
  // calls it with the same arguments. Collective.
  virtual void fill_halo(std::span<double> field, int columns, int below, int above, bool wrap) const = 0;
  // Values moved between processes: `count` doubles at `data`, to or from process `peer`.
  struct Transfer {
    int peer;
    double* data;
    std::size_t count;
  };
  // Sends and receives the transfers; the k-th receive from a process takes the k-th send to
  // this one from it, so both sides list theirs in one agreed order. Collective.
  virtual void exchange(std::span<const Transfer> sends, std::span<const Transfer> receives) const = 0;
  // The largest of every process's `value`. Collective.
  virtual int largest(int value) const = 0;
  // Every process's `mine`, in process order (the order of their rows), into `all`, resized to
  // their total length. Collective.
  virtual void gather_all(std::span<const double> mine, std::vector<double>& all) const = 0;
  // Bytes this process has sent to others so far.
  virtual std::size_t bytes_sent() const = 0;

 protected:
  RowSlabs(int rows, int band_rows, int process, int processes);

 private:
  int rows_, band_rows_, process_;
  std::vector<RowRun> slabs_;
};

// The sum of term(c) over the cells c of a row-major grid `columns` wide and `rows` high (with
// `slabs`, over every slab's rows, each process adding its own): per band of band_rows rows,
// four running sums in cell order (a fixed order that vectorises), then the bands in order. The
// same bits on any number of processes and threads. `partial` and `all` are scratch (they grow
// once). Collective when split.
template <class Term>
double sum_by_bands(int rows, int columns, int band_rows, const RowSlabs* slabs, std::vector<double>& partial,
                    std::vector<double>& all, const Term& term) {
  const int first_band = slabs ? slabs->first_band() : 0;
  const int last_band = slabs ? slabs->last_band() : (rows + band_rows - 1) / band_rows;
  partial.resize(static_cast<std::size_t>(last_band - first_band));
  parallel_tasks(last_band - first_band, [&](int k) {
    const int band = first_band + k;
    const Index first = Index(band) * band_rows * columns, last = Index(std::min(rows, (band + 1) * band_rows)) * columns;
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    Index c = first;
    for (; c + 4 <= last; c += 4)
      for (Index l = 0; l < 4; ++l) s[l] += term(c + l);
    for (; c < last; ++c) s[0] += term(c);
    partial[static_cast<std::size_t>(k)] = (s[0] + s[1]) + (s[2] + s[3]);
  });
  std::span<const double> bands = partial;
  if (slabs) {
    slabs->gather_all(partial, all);
    bands = all;
  }
  double sum = 0.0;
  for (const double b : bands) sum += b;
  return sum;
}

}  // namespace simgrad
