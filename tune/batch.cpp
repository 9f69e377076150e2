#include "tune/batch.hpp"

namespace simgrad::tune {
namespace {

// Every item here, in order; an item's exception leaves the batch as it is thrown.
class InProcessExecutor final : public BatchExecutor {
 public:
  void run(std::size_t count, std::size_t width, std::span<double> rows, const Evaluate& evaluate) override {
    for (std::size_t i = 0; i < count; ++i) evaluate(i, rows.subspan(i * width, width));
  }
};

InProcessExecutor g_in_process;
BatchExecutor* g_executor = &g_in_process;

}  // namespace

BatchExecutor& batch_executor() { return *g_executor; }

void set_batch_executor(BatchExecutor* executor) { g_executor = executor ? executor : &g_in_process; }

}  // namespace simgrad::tune
