#pragma once

// Batches: independent evaluations an optimizer or a command asks for together (a CMA-ES
// generation, the points of a sweep), which may run anywhere because each one's result depends
// on its own input alone. The process's executor decides where: by default this process, one
// item after another; under MPI (dist/), each process computes a contiguous block of the items
// and every process then holds every result, copied bit for bit. Nothing is added across items
// here, so the results are the same for any number of processes.

#include <cstddef>
#include <functional>
#include <span>

namespace simgrad::tune {

class BatchExecutor {
 public:
  // Computes item i into its row: `width` doubles that the item's evaluation overwrites.
  using Evaluate = std::function<void(std::size_t item, std::span<double> row)>;

  virtual ~BatchExecutor() = default;

  // Fills `rows` (count x width, row after row) by calling evaluate for the items this process
  // owns; on return every process holds every row. An exception thrown by an item ends the
  // batch on every process with that item's error (the lowest such item's, whatever the split).
  virtual void run(std::size_t count, std::size_t width, std::span<double> rows, const Evaluate& evaluate) = 0;
};

// The executor batches run on: the one set last, else this process alone, items in order.
BatchExecutor& batch_executor();

// Makes `executor` (which must outlive its use) the process's executor; nullptr restores the
// default. Set once, before any batch runs (the command line sets it at start-up).
void set_batch_executor(BatchExecutor* executor);

}  // namespace simgrad::tune
