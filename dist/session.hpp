#pragma once

// One run's processes, when simgrad is launched by an MPI launcher (mpirun, mpiexec, srun).
//
// Every process runs the same program on the same input in lockstep: the optimizer's state is
// the same on each, because everything it computes is deterministic. Only batches differ: each
// process evaluates its block of a batch (tune::block_of) and then every process holds every
// result, copied bit for bit (MPI_Allgatherv of doubles moves numbers, it adds nothing). So a
// run gives the same bits on any number of processes, and rank 0 alone prints and writes files.
//
// Errors are agreed, not left to one process: an evaluation that throws on any process ends the
// batch on every process with the error of the lowest failing item (EveryRankError), which each
// process then reports as the one-process run would (rank 0 prints it). An error outside a batch
// that only some processes see (rank 0 failing to write a file) ends the whole run by
// MPI_Abort, because the others would wait for it forever.

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/subdomain.hpp"
#include "tune/batch.hpp"

namespace simgrad::dist {

// The exit code and message a failure ends the command line with, from the exception itself.
using ExitCodeOf = std::function<int(std::exception_ptr error, std::string& message)>;

// An error every process of the run has agreed on: the same message and exit code everywhere.
class EveryRankError : public std::runtime_error {
 public:
  EveryRankError(const std::string& message, int exit_code) : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// How many processes an MPI launcher started this run with, read from the launcher's
// environment (Open MPI, MPICH and Intel MPI's Hydra, Slurm's PMI); 0 when none launched it.
int launched_process_count();

// The number of processes of this run on this node, from the launcher; 1 when not launched.
int launched_local_process_count();

// True when this simgrad was built with SIMGRAD_MPI.
bool built_with_mpi();

// The run's processes; as a Splitter (core/subdomain.hpp), what a model split over them asks of
// MPI (dist/mpi_subdomain.hpp).
class Session : public Splitter {
 public:

  // Starts MPI when a launcher started this process, else returns nullptr. Throws
  // std::invalid_argument when launched with several processes by a simgrad built without MPI.
  static std::unique_ptr<Session> start_if_launched(ExitCodeOf exit_code_of);

  bool is_root() const { return rank() == 0; }

  // Runs body on every process; when it throws on any, throws EveryRankError on every process
  // with the lowest failing rank's message and exit code.
  virtual void agree(const std::function<void()>& body) = 0;

  // Throws EveryRankError (exit code 2) on every process unless each holds the same `value` as
  // rank 0; the message says which `what` differs and on which rank.
  virtual void require_same(std::string_view what, std::string_view value) = 0;

  // (any(flag), from Splitter: an interrupt seen by one process stops every process.)

  // Spreads batches over the processes (tune/batch.hpp).
  virtual tune::BatchExecutor& executor() = 0;

  // How many batch items each process has evaluated so far, by rank, on every process: the
  // measure that the work was spread.
  virtual std::vector<long> items_per_process() = 0;

  // Each process's `value`, by rank, on every process. Collective.
  virtual std::vector<long> gather(long value) = 0;

  // Ends every process of the run now, with this exit code.
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

}  // namespace simgrad::dist
