// A model split over processes, and sums over its elements that do not depend on the split.
//
// A split model's elements (an epidemic's agents) are numbered 0 .. total - 1 once, for the
// whole model; a process holds the contiguous run [first, first + owned) of them and, after its
// own, copies ("ghosts") of the others' elements that its own read (the other ends of contacts).
// A step computes its own elements, then fill_ghosts() copies the ghosts' values from their
// owners: values are moved, never added, so they are the same bits on every process.
//
// Sums over elements are the other traffic. Adding partial sums in the order they arrive, or by
// MPI_Allreduce in an order the library chooses, would give different bits for different
// numbers of processes. Here a sum is taken per block of kBlockSize elements (as every threaded
// loop already does), per group of consecutive blocks in block order, and over groups in group
// order. The number of blocks in a group depends on the model's size alone, a process holds
// whole groups, and gather_groups() hands every process every group's sums: so a sum is the
// same bits on one process or many, with any number of threads. Up to kMaxGroups groups: for a
// model below kMaxGroups blocks a group is one block, and the order is the plain block order.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "core/process_split.hpp"
#include "core/row_slabs.hpp"
#include "core/vec.hpp"

namespace simgrad {

inline constexpr Index kMaxGroups = 1024;

// Blocks per group, and groups, for a model of `total` elements.
Index group_blocks(Index total);
Index group_count(Index total);

// One process's share of a split model; the whole model on one process is no Subdomain at all.
class Subdomain : public ProcessSplit {
 public:
  virtual ~Subdomain() = default;
  // The whole model's element count, this process's first element and how many it holds.
  Index total() const { return total_; }
  Index first() const { return first_; }
  Index owned() const { return owned_; }
  // The others' elements this process copies.
  Index ghosts() const { return ghosts_; }
  // Copies into values[owned() + k] the owner's value of ghost k, for every ghost. Collective:
  // every process calls it at the same point.
  void fill_ghosts(std::span<double> values) const { fill_ghost_rows(values, 1); }
  // The same for `width` values an element (a node's position): ghost k's row is
  // values[(owned() + k) width, (owned() + k + 1) width).
  virtual void fill_ghost_rows(std::span<double> values, Index width) const = 0;
  // Every group's `width` values, in group order, into `all` (group_count(total()) x width):
  // this process's groups from `mine`, the others' from theirs. Collective.
  virtual void gather_groups(std::span<const double> mine, std::span<double> all, Index width) const = 0;
  // Every process's `mine`, in rank order (which is the order of their elements), into `all`,
  // resized to their total length (allocating only when it grows). For what is gathered once a
  // rollout, not each step. Collective.
  virtual void gather_all(std::span<const double> mine, std::vector<double>& all) const = 0;
  // Bytes this process has sent to others so far: ghost values, their lengths and group sums.
  virtual std::size_t bytes_sent() const = 0;

 protected:
  Subdomain(Index total, Index first, Index owned, Index ghosts)
      : total_(total), first_(first), owned_(owned), ghosts_(ghosts) {}

 private:
  Index total_, first_, owned_, ghosts_;
};

// The elements [first, last) of `total` that process `process` of `processes` holds: whole
// groups, split as evenly as groups allow. Throws std::invalid_argument when there are more
// processes than groups (some would hold nothing).
struct ElementRun {
  Index first = 0, last = 0;
  bool contains(Index element) const { return element >= first && element < last; }
};
ElementRun partition_run(Index total, int processes, int process);

// A message of ghost values, shorter when most are zero (as most of an epidemic's are on most
// days): (place, value) pairs of the values whose bits are not those of +0 when that is shorter
// than the values, else the values. pack_ghost_values writes it into `message` (room for twice
// the values) and returns its length; unpack_ghost_values restores every value's bits.
std::size_t pack_ghost_values(std::span<const double> values, std::span<double> message);
void unpack_ghost_values(std::span<const double> message, std::span<double> values);

// Rows of `width` values per block of a split model's elements, gathered in the whole model's
// block order: each process fills its own blocks' rows, gather() hands every process every
// block's. For sums that a whole model's loop adds block by block in block order (kernel.hpp's
// shared adjoints and sums): adding the gathered rows in that order gives the same bits on any
// number of processes. Sized once; gather() allocates nothing.
class BlockRows {
 public:
  BlockRows(const Subdomain& subdomain, Index width);
  Index width() const { return width_; }
  // This process's blocks, and the whole model's.
  Index own_blocks() const { return own_blocks_; }
  Index blocks() const { return blocks_; }
  // The row of this process's block b, to fill before gather().
  double* own_row(Index b) { return mine_.data() + static_cast<std::size_t>(b * width_); }
  // Collective.
  void gather();
  // The row of the whole model's block b, after gather().
  const double* row(Index b) const { return all_.data() + static_cast<std::size_t>(b * width_); }

 private:
  const Subdomain& subdomain_;
  Index width_, own_blocks_, blocks_;
  std::vector<double> mine_, all_;  // whole groups: the last group's missing blocks are padding
};

// Thrown on the processes of a split run that met no error when another did, inside a step all
// of them must leave together; the error reported is the other process's (dist::Session).
class AnotherProcessFailed : public std::runtime_error {
 public:
  AnotherProcessFailed() : std::runtime_error("another process of the run failed") {}
};

// A run's processes, as a model splits over them: the process of rank() of size() holds the
// elements partition_run(total, size(), rank()).
class Splitter {
 public:
  virtual ~Splitter() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This process's share of a model of `total` elements, where `ghosts` are the others'
  // elements it copies (the whole model's numbers, in increasing order). Collective.
  virtual std::unique_ptr<Subdomain> subdomain(Index total, std::vector<std::int64_t> ghosts) = 0;
  // This process's slab of a grid of `rows` rows split in bands of `band_rows` (slab_of).
  // Collective.
  virtual std::unique_ptr<RowSlabs> row_slabs(int rows, int band_rows) = 0;
  // True on every process when `flag` is true on any. Collective.
  virtual bool any(bool flag) = 0;
};

// Per-block partial sums over a process's elements, `width` values a block, and their sums over
// the whole model in the fixed order above. Sized once; reduce() allocates nothing.
class BlockSums {
 public:
  // `elements`: this process's (subdomain->owned(), or the whole model's when subdomain is null).
  BlockSums(Index elements, Index width, const Subdomain* subdomain = nullptr);
  // Block b's row of partial sums (a block of this process's elements).
  double* block(Index b) { return blocks_.data() + static_cast<std::size_t>(b) * static_cast<std::size_t>(width_); }
  // Sums columns [column, column + count) of the blocks per group, and gathers every process's
  // groups (collective when split).
  void reduce(Index column, Index count);
  // target[k] += scale x sum over groups of column + k, in group order, for k < count: as
  // reduce() left them.
  void add_to(Index column, Index count, double* target, double scale = 1.0) const;
  // 0 + the sum over groups of a column, in group order.
  double total(Index column) const {
    double sum = 0.0;
    add_to(column, 1, &sum);
    return sum;
  }

 private:
  Index width_, blocks_per_group_, groups_, local_groups_;
  const Subdomain* subdomain_;
  std::vector<double> blocks_;      // local blocks x width
  std::vector<double> mine_, all_;  // local groups x count; all groups x width
  Index reduced_column_ = 0, reduced_count_ = 0;
};

}  // namespace simgrad
