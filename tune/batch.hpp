#pragma once

// Batches: independent evaluations an optimizer or a command asks for together (a CMA-ES
// generation, the points of a sweep, the noise seeds of an averaged loss, the columns of a
// finite-difference Jacobian), which may run anywhere because each one's result depends on its
// own input alone. The process's executor decides where: by default this process, one item
// after another; under MPI (dist/), each process computes a contiguous block of the items
// (block_of) and every process then holds every result, copied bit for bit. Nothing is added
// across items here: a caller that sums the rows sums them in item order afterwards, so the
// results are the same for any number of processes.

#include <cstddef>
#include <functional>
#include <span>

namespace simgrad::tune {

// The items [begin, end) of a batch one process computes.
struct BatchBlock {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t size() const { return end - begin; }
};

// Process `process`'s block when `count` items are split over `processes`: contiguous blocks in
// process order, sizes differing by at most one, the larger first; gathering the blocks in
// process order restores the items' order.
constexpr BatchBlock block_of(std::size_t count, int processes, int process) {
  const std::size_t share = count / std::size_t(processes), extra = count % std::size_t(processes);
  const std::size_t p = std::size_t(process);
  const std::size_t begin = p * share + (p < extra ? p : extra);
  return {begin, begin + share + (p < extra ? 1 : 0)};
}

class BatchExecutor {
 public:
  // Computes item i into its row: `width` doubles that the item's evaluation overwrites.
  using Evaluate = std::function<void(std::size_t item, std::span<double> row)>;

  virtual ~BatchExecutor() = default;

  // Fills `rows` (count x width, row after row) by calling evaluate for the items this process
  // owns; on return every process holds every row. An exception thrown by an item ends the
  // batch on every process with that item's error (the lowest such item's, whatever the split).
  // A batch run from inside another batch's item runs whole on the process computing that item.
  virtual void run(std::size_t count, std::size_t width, std::span<double> rows, const Evaluate& evaluate) = 0;
};

// The executor batches run on: the one set last, else this process alone, items in order.
BatchExecutor& batch_executor();

// Makes `executor` (which must outlive its use) the process's executor; nullptr restores the
// default. Set once, before any batch runs (the command line sets it at start-up).
void set_batch_executor(BatchExecutor* executor);

}  // namespace simgrad::tune
