#!/usr/bin/env bash
# Sets up the machine, builds, and runs the main job: gradient tuning of the built-in default
# scenario (DiffTaichi's mass_spring_simple triangle), writing out/demo/result.json and loss.svg.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only the command line is built: the tests and benchmarks are scripts/test.sh's.
bash scripts/setup.sh simgrad
build/simgrad tune --out out/demo "$@"
