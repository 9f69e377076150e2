// A batch executor that splits batches as MPI processes would, inside one process: each
// process's block (tune::block_of) evaluated on its own, the last process first so that the
// order of evaluation cannot matter, into its own copy of the rows, the blocks then copied into
// place. Tests use it to show that a batch spread over processes gives the plain run's bits; the
// MPI executor itself runs under mpirun in tests/dist/ranks_test.sh.
#pragma once

#include <algorithm>
#include <vector>

#include "tune/batch.hpp"

namespace simgrad::tune::testing {

class SimulatedRanks final : public BatchExecutor {
 public:
  explicit SimulatedRanks(int ranks) : ranks_(ranks) {}

  // Each block on its own; a batch inside a batch's item runs whole, as the MPI executor runs it.
  void run(std::size_t count, std::size_t width, std::span<double> rows, const Evaluate& evaluate) override {
    if (inside_) {
      for (std::size_t i = 0; i < count; ++i) evaluate(i, rows.subspan(i * width, width));
      return;
    }
    inside_ = true;
    for (int r = ranks_ - 1; r >= 0; --r) {
      std::vector<double> own(rows.size(), -1.0);  // this process's copy: only its block is computed
      const BatchBlock block = block_of(count, ranks_, r);
      for (std::size_t i = block.begin; i < block.end; ++i) evaluate(i, std::span(own).subspan(i * width, width));
      std::copy(own.begin() + std::ptrdiff_t(block.begin * width), own.begin() + std::ptrdiff_t(block.end * width),
                rows.begin() + std::ptrdiff_t(block.begin * width));
    }
    inside_ = false;
    ++batches_;
  }

  // Batches run so far, not counting those inside another's item.
  int batches() const { return batches_; }

 private:
  int ranks_;
  int batches_ = 0;
  bool inside_ = false;
};

// Makes an executor the process's for one scope.
class UseExecutor {
 public:
  explicit UseExecutor(BatchExecutor& executor) { set_batch_executor(&executor); }
  ~UseExecutor() { set_batch_executor(nullptr); }
  UseExecutor(const UseExecutor&) = delete;
  UseExecutor& operator=(const UseExecutor&) = delete;
};

}  // namespace simgrad::tune::testing
