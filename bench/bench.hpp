// The benchmark suite behind `simgrad bench`: the engine's figures of merit, measured side by
// side in one run (bench.cpp; the simulators' benchmarks are listed in bench_support.hpp).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace simgrad::app {

struct BenchOptions {
  std::string filter;  // a regex on the benchmarks' names; empty: all
  int repeats = 3;
  int steps = 1000;
  bool peers = false;  // only the benchmarks measured beside a peer engine, then their table
};

// The benchmarks measured beside a peer engine (taichi, Warp, PyTorch), as a filter.
inline constexpr const char* kPeerBenchmarks =
    "^(mass_spring_peers|mpm_peers|mpm_diffmpm/|contagion/|fluid_smoke_target)";

// One row per (benchmark, peer) of the entries measured beside a peer: median wall times of both,
// their ratios (ours over the peer's: below 1, simgrad is faster), peak memory, and how far loss
// and gradient differ.
nlohmann::json peer_table(const nlohmann::json& benchmarks);

// Runs the benchmarks whose names match the filter on `threads` threads (0: all cores), each
// configuration in a child process of its own; hands each entry to `report` as it is measured
// and returns all of them, in order, as a JSON array.
nlohmann::json run_benchmarks(const BenchOptions& options, int threads,
                              const std::function<void(const nlohmann::json&)>& report);

}  // namespace simgrad::app
