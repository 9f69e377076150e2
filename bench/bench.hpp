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
};

// Runs the benchmarks whose names match the filter on `threads` threads (0: all cores), each
// configuration in a child process of its own; hands each entry to `report` as it is measured
// and returns all of them, in order, as a JSON array.
nlohmann::json run_benchmarks(const BenchOptions& options, int threads,
                              const std::function<void(const nlohmann::json&)>& report);

}  // namespace simgrad::app
