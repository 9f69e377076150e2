#include "dist/session.hpp"

#include "dist/mpi_subdomain.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>


#ifdef SIMGRAD_MPI
#include <mpi.h>
#endif

namespace simgrad::dist {
namespace {

// The value of an environment variable as a positive count, or 0 when unset or not a count.
int count_from_environment(const char* name) {
  const char* text = std::getenv(name);
  if (!text) return 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && value > 0 && value <= INT_MAX ? int(value) : 0;
}

#ifdef SIMGRAD_MPI

class MpiSession final : public Session, private tune::BatchExecutor {
 public:
  explicit MpiSession(ExitCodeOf exit_code_of) : exit_code_of_(std::move(exit_code_of)) {
    // Parallel loops run on OpenMP threads inside each process; only the main thread calls MPI.
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::unique_ptr<Subdomain> subdomain(Index total, std::vector<std::int64_t> ghosts) override {
    return make_mpi_subdomain(total, rank_, size_, std::move(ghosts));
  }

  std::unique_ptr<RowSlabs> row_slabs(int rows, int band_rows) override {
    return make_mpi_row_slabs(rows, band_rows, rank_, size_);
  }

  void agree(const std::function<void()>& body) override {
    std::exception_ptr error;
    try {
      body();
    } catch (...) {
      error = std::current_exception();
    }
    settle(error);
  }

  void require_same(std::string_view what, std::string_view value) override {
    std::string root_value(value);
    broadcast(root_value, 0);
    const int lowest = lowest_rank_with(root_value != value);
    if (lowest < size_) {
      throw EveryRankError("rank " + std::to_string(lowest) + " of " + std::to_string(size_) + " has a different " +
                               std::string(what) + " than rank 0; every process must run the same simgrad on the same input",
                           2);
    }
  }

  bool any(bool flag) override {
    int value = flag ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return value != 0;
  }

  tune::BatchExecutor& executor() override { return *this; }

  std::vector<long> items_per_process() override { return gather(items_evaluated_); }

  std::vector<long> gather(long value) override {
    std::vector<long> values(static_cast<std::size_t>(size_));
    MPI_Allgather(&value, 1, MPI_LONG, values.data(), 1, MPI_LONG, MPI_COMM_WORLD);
    return values;
  }

  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::abort();
  }

 private:
  // This process's block of the items, then every block to every process.
  void run(std::size_t count, std::size_t width, std::span<double> rows, const Evaluate& evaluate) override {
    if (count * width > std::size_t(INT_MAX)) {
      throw std::invalid_argument("a batch of " + std::to_string(count) + " rows of " + std::to_string(width) +
                                  " numbers is more than one MPI message carries");
    }
    if (inside_batch_) {
      // A batch inside another's item (the noise seeds of one CMA-ES sample): the other
      // processes are busy with other items, so this one computes it all.
      for (std::size_t i = 0; i < count; ++i) evaluate(i, rows.subspan(i * width, width));
      return;
    }
    const tune::BatchBlock mine = tune::block_of(count, size_, rank_);
    std::exception_ptr error;
    inside_batch_ = true;
    try {
      for (std::size_t i = mine.begin; i < mine.end; ++i) {
        evaluate(i, rows.subspan(i * width, width));
        ++items_evaluated_;
      }
    } catch (...) {
      error = std::current_exception();
    }
    inside_batch_ = false;
    settle(error);
    std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      const tune::BatchBlock block = tune::block_of(count, size_, r);
      counts[std::size_t(r)] = int(block.size() * width);
      offsets[std::size_t(r)] = int(block.begin * width);
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rows.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
  }

  // Throws on every process the error of the lowest rank that has one; returns when none has.
  // A process that failed only because another did (AnotherProcessFailed) is not the source.
  void settle(const std::exception_ptr& error) {
    if (lowest_rank_with(error != nullptr) == size_) return;
    int lowest = lowest_rank_with(error != nullptr && !is_another_process_failure(error));
    if (lowest == size_) lowest = lowest_rank_with(error != nullptr);  // (none but followers: cannot happen)
    std::string message;
    int exit_code = 1;
    if (rank_ == lowest) exit_code = exit_code_of_(error, message);
    MPI_Bcast(&exit_code, 1, MPI_INT, lowest, MPI_COMM_WORLD);
    broadcast(message, lowest);
    throw EveryRankError(message, exit_code);
  }

  // Whether the error is AnotherProcessFailed.
  static bool is_another_process_failure(const std::exception_ptr& error) {
    try {
      std::rethrow_exception(error);
    } catch (const AnotherProcessFailed&) {
      return true;
    } catch (...) {
      return false;
    }
  }

  // The lowest rank whose flag is true, or size() when none is.
  int lowest_rank_with(bool flag) {
    int candidate = flag ? rank_ : size_;
    MPI_Allreduce(MPI_IN_PLACE, &candidate, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return candidate;
  }

  // Makes `text` on every process what it is on rank `root`.
  void broadcast(std::string& text, int root) {
    unsigned long length = text.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, root, MPI_COMM_WORLD);
    text.resize(length);
    MPI_Bcast(text.data(), int(length), MPI_CHAR, root, MPI_COMM_WORLD);
  }

  ExitCodeOf exit_code_of_;
  long items_evaluated_ = 0;
  bool inside_batch_ = false;
  int rank_ = 0;
  int size_ = 1;
};

#endif

}  // namespace

int launched_process_count() {
  // Open MPI; MPICH and Intel MPI (Hydra) and Slurm's PMI-2.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const int count = count_from_environment(name)) return count;
  }
  // Slurm's srun with PMIx names each task's rank but not the count.
  if (std::getenv("PMIX_RANK")) return std::max(1, count_from_environment("SLURM_NTASKS"));
  return 0;
}

int launched_local_process_count() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const int count = count_from_environment(name)) return count;
  }
  return 1;
}

bool built_with_mpi() {
#ifdef SIMGRAD_MPI
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Session> Session::start_if_launched(ExitCodeOf exit_code_of) {
  const int launched = launched_process_count();
  if (launched == 0) return nullptr;
#ifdef SIMGRAD_MPI
  return std::make_unique<MpiSession>(std::move(exit_code_of));
#else
  (void)exit_code_of;
  if (launched == 1) return nullptr;  // one process: nothing to spread, the plain run is the run
  throw std::invalid_argument("launched as " + std::to_string(launched) +
                              " processes by an MPI launcher, but this simgrad was built without MPI; "
                              "build it with -DSIMGRAD_MPI=ON (docs/distributed.md), or run it without mpirun");
#endif
}

}  // namespace simgrad::dist
