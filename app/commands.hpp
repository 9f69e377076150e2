// The simgrad command line: one function per subcommand, each returning the process exit code
// (0 success, 1 a failure while running, 2 bad usage or bad input).
#pragma once

#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "dist/session.hpp"

namespace simgrad::app {

// Flags every subcommand takes.
struct CommonOptions {
  bool json = false;
  bool quiet = false;
  int threads = 0;         // 0: all cores
  std::string checkpoint;  // empty: the scenario's own
  dist::Session* session = nullptr;  // the run's processes under an MPI launcher, else none
};

// The exit code a failure ends the command with, and its message: 2 for bad input (a scenario
// error, an invalid argument), 1 for a failure while running.
int exit_code_of(std::exception_ptr error, std::string& message);

struct GradcheckCommandOptions {
  int directions = 0;  // 0: every coordinate (up to 64, then 16 random directions)
  double step = 1e-6;
  double rtol = 1e-4;
  double atol = 1e-9;
  bool split = false;  // under mpirun: one model split over the processes
};

struct RunCommandOptions {
  std::optional<std::filesystem::path> frames;  // a folder for PNG frames of the run
  int frame_width = 640;
  int frame_height = 480;
  std::vector<std::filesystem::path> exports;  // .gltf or .pvd files (scenario/run_export.hpp)
  bool split = false;  // under mpirun: one model split over the processes
};

struct TuneCommandOptions {
  std::filesystem::path out;
  std::optional<std::filesystem::path> resume;  // a folder of an interrupted tune
  std::string optimizer;  // empty: the scenario's
  int iterations = 0;     // 0: the scenario's
  std::vector<std::filesystem::path> exports;  // of the tuned run: .gltf or .pvd files
  bool split = false;  // under mpirun: one model split over the processes
};

struct CompareCommandOptions {
  std::filesystem::path out = "simgrad-out";  // where report.html goes
  std::optional<double> target;
  long budget = 0;  // 0: the scenario's baseline budget
};

struct SweepCommandOptions {
  std::vector<std::string> params;             // NAME=LOW:HIGH:COUNT or NAME=V1,V2,...; a grid
  std::optional<std::filesystem::path> points;  // a CSV list of points instead of a grid
  std::filesystem::path out = "simgrad-out";   // where sweep.csv goes
  bool gradient = false;                       // also the loss's derivatives along the swept components
};

struct ExplainCommandOptions {
  int hints = 0;            // 0: the scenario's
  double joint_step = 0.0;  // 0: the scenario's
  double area_step = 0.0;   // 0: the scenario's
};

int run_list(const CommonOptions& common);
// Prints one simulator's parameters; an unknown name is bad usage (2), with the nearest name.
int run_describe(const std::string& simulator, const CommonOptions& common);
// Runs forward and prints the loss; with --frames, also draws the run as PNG frames.
int run_run(const std::filesystem::path& scenario, const RunCommandOptions& options, const CommonOptions& common);
struct GradCommandOptions {
  bool split = false;  // under mpirun: one model split over the processes
};
int run_grad(const std::filesystem::path& scenario, const GradCommandOptions& options, const CommonOptions& common);
int run_gradcheck(const std::filesystem::path& scenario, const GradcheckCommandOptions& options, const CommonOptions& common);
int run_tune(const std::filesystem::path& scenario, const TuneCommandOptions& options, const CommonOptions& common);
int run_compare(const std::filesystem::path& scenario, const CompareCommandOptions& options,
                const CommonOptions& common);
// Rebuilds DIR/report.html from DIR/report.json, without re-simulating.
// The loss (and with --gradient its derivatives) at every point of a grid or list of parameter
// values, written as OUT/sweep.csv; under MPI the points spread over the processes.
int run_sweep(const std::filesystem::path& scenario, const SweepCommandOptions& options, const CommonOptions& common);
int run_render(const std::filesystem::path& dir, const CommonOptions& common);
int run_explain(const std::filesystem::path& scenario, const ExplainCommandOptions& options, const CommonOptions& common);
int run_bench(const BenchOptions& options, const CommonOptions& common);

}  // namespace simgrad::app
