// What `simgrad bench` measures with: child processes, timing and medians (bench/bench.cpp), and
// the benchmarks of each simulator.
#pragma once

#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/rollout.hpp"

namespace simgrad::app {

// The median of the values (0 for none).
double median(std::vector<double> v);
// Wall time of f().
double time_of(const std::function<void()>& f);
// Process CPU time of f(), all threads together: on a shared machine the steadier measure.
double cpu_time_of(const std::function<void()>& f);
// How many times to repeat a measurement of `seconds_per_run`: at least `repeats`, and for short
// runs enough for about a second in all.
int repeats_for(double seconds_per_run, int repeats);
// Runs `body` in a child process; returns its JSON result with the child's peak RSS added.
nlohmann::json in_child(const std::function<nlohmann::json()>& body);

// The Python that has torch (SIMGRAD_PYTHON, else Debian's /usr/bin/python3 or python3 if it
// imports torch); empty if none.
std::string peer_python();
// The Python of the taichi and Warp peers' virtual environment (SIMGRAD_MPM_PYTHON, else
// build-bench-venv/bin/python that scripts/setup_bench.sh makes) if it imports `module`; empty if not.
std::string venv_peer_python(const std::string& module);
// Runs bench/peers/SCRIPT with `settings` written to `settings_file`; returns the JSON it prints
// on its last line, or {"error": ...}.
nlohmann::json run_peer(const std::string& python, const std::string& script, const nlohmann::json& settings,
                        const std::filesystem::path& settings_file);
// The largest difference between two gradients over the largest entry of the first: arrays
// entry by entry, or objects of named values or arrays, name by name.
double gradient_difference(const nlohmann::json& a, const nlohmann::json& b);
// Medians of the forward times of a rollout and of a hand-written reference that returns the
// same final state, interleaved, and the largest difference between their final states:
// {"forward_1thread_s", "reference_s", "max_state_difference"}.
nlohmann::json time_against_reference(Rollout& rollout, const std::function<std::vector<double>()>& reference_run,
                                      int repeats);
// A benchmark's entry from its rollout run (forward_s, gradient_s, peak_rss_mb) and its reference
// run (forward_1thread_s, reference_s, max_state_difference), each measured in a child.
// A benchmark's entry from its run alone, for one that has no reference implementation: the
// reference fields are null.
nlohmann::json entry_without_reference(const std::string& name, const nlohmann::json& run);
nlohmann::json entry_against_reference(const std::string& name, const nlohmann::json& run, const nlohmann::json& ref,
                                       const std::string& reference, int threads);

// The machine's limits (bench/machine_limits.cpp) on one thread and on `threads` (0: every core):
// memory bandwidth by a STREAM triad ("triad_gb_s"), and peak rates of multiply-add chains
// ("*_mul_add_gflops", "*_fma_gflops") and of square-root-and-division chains
// ("*_sqrt_div_giga_per_s") at each vector width the processor has; one-thread figures end in
// "_1thread". Best of `repeats` runs each.
nlohmann::json measure_machine_limits(int threads, int repeats);

// The least one step of a benchmark moves (bytes) and computes (flops, and square roots each
// with a division: the divider's work), counted on its laws, against which the machine's limits
// are read.
struct StepCost {
  double bytes = 0.0;
  double flops = 0.0;
  double square_roots = 0.0;
};
// The fractions of the machine's limits (measure_machine_limits) that `steps` steps of `cost` in
// `seconds` on `threads` threads reach: of the triad's bandwidth, of the widest multiply-add peak
// (simgrad does not fuse multiply-adds) and, where the step takes square roots, of the
// square-root-and-division rate of plain scalar code and of the widest vectors.
nlohmann::json fractions_of_limits(const StepCost& cost, int steps, double seconds, int threads,
                                   const nlohmann::json& limits);

// The contagion benchmarks whose names match `filter`, each handed to `report`
// (bench/contagion_bench.cpp).
void contagion_benchmarks(const std::regex& filter, int repeats, int threads,
                          const std::function<void(const nlohmann::json&)>& report);
// The fluid benchmarks (bench/fluid_bench.cpp), likewise.
void fluid_benchmarks(const std::regex& filter, int repeats, int threads,
                      const std::function<void(const nlohmann::json&)>& report);

// The creature benchmarks whose names match `filter` (bench/creature_bench.cpp).
void creature_benchmarks(const std::regex& filter, int repeats, int threads,
                         const std::function<void(const nlohmann::json&)>& report);

// The FEM benchmarks whose names match `filter` (bench/fem_bench.cpp); `machine_limits` gives
// the machine's limits (measured once, when first asked).
void fem_benchmarks(const std::regex& filter, int steps, int repeats, int threads,
                    const std::function<const nlohmann::json&()>& machine_limits,
                    const std::function<void(const nlohmann::json&)>& report);

// The rigid-body benchmarks whose names match `filter`, side by side with MuJoCo's C engine when
// the build found it (bench/rigid_bench.cpp); `steps` is the horizon of one world.
void rigid_benchmarks(const std::regex& filter, int steps, int repeats, int threads,
                      const std::function<void(const nlohmann::json&)>& report);

// The material point method's benchmarks, and DiffTaichi's diffmpm task (bench/mpm_bench.cpp).
void mpm_benchmarks(const std::regex& filter, int steps, int repeats, int threads,
                    const std::function<void(const nlohmann::json&)>& report);

}  // namespace simgrad::app
