#!/usr/bin/env bash
# Sets up the machine, builds, and runs every test twice: in the Release build (GCC), and in a
# clang build under AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/), which also
# builds the scenario fuzzer and runs it for 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)

echo "== device code: the element bodies compiled by nvcc for sm_80 and sm_90 (docs/gpu.md)"
if [ -f build/CMakeFiles/simgrad_device_kernels.dir/gpu/device_kernels.cu.o ]; then
  echo "compiled: gpu/device_kernels.cu"
else
  echo "not compiled: no CUDA toolkit on this machine"
fi

echo "== tests (Release)"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== the installed package, used by a project of its own (tests/consumer)"
rm -rf build/install build/consumer
cmake --install build --prefix build/install > /dev/null
cmake -S tests/consumer -B build/consumer -DCMAKE_PREFIX_PATH="$PWD/build/install" > /dev/null
cmake --build build/consumer -j "$jobs" > /dev/null
build/consumer/consumer
build/consumer/consumer_c

echo "== tests (AddressSanitizer + UndefinedBehaviorSanitizer, clang), then fuzzing the scenario loader"
# One clang build serves both: the suites under the sanitizers, and the libFuzzer target (which
# needs clang), so the libraries are compiled once for the two. Line tables only (-g1): the
# sanitizers' reports keep file and line, and the build compiles about 15% faster than with full
# debug information.
cmake -S . -B build-sanitize -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DSIMGRAD_SANITIZE=ON -DSIMGRAD_FUZZ=ON -DSIMGRAD_BUILD_BENCH=OFF > /dev/null
cmake --build build-sanitize -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure -j "$jobs"

echo "== fuzzing the scenario loader (libFuzzer under ASan and UBSan, 30 s; docs/testing.md has the long run)"
mkdir -p build-sanitize/corpus
# build-sanitize/corpus grows between runs; the shipped examples seed it.
build-sanitize/scenario_fuzz -max_total_time=30 -max_len=16384 -timeout=30 -artifact_prefix=build-sanitize/ \
  build-sanitize/corpus examples examples/vehicle
