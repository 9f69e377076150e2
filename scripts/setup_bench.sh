#!/usr/bin/env bash
# Installs what `simgrad bench` compares against beyond the build: Debian's python3-torch for the
# plain-PyTorch peers (bench/peers/*_torch.py). Large (about 1 GB), so it is not part of
# scripts/setup.sh or the tests; without it the benchmark says so.
set -euo pipefail
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq python3-torch
fi

# The taichi and Warp peers (bench/peers/*_taichi.py, bench/peers/*_warp.py): DiffTaichi's engine
# (taichi) and NVIDIA Warp (warp-lang), both on their CPU backends, pinned, in a virtual
# environment of their own beside the build (build-bench-venv/, ignored by git) so that nothing
# of theirs reaches the tests. `simgrad bench` finds it there, or through SIMGRAD_MPM_PYTHON.
SOURCE_DIR="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${SIMGRAD_BENCH_VENV:-$SOURCE_DIR/build-bench-venv}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q "taichi==1.7.4" "warp-lang==1.10.1" "numpy<2.3"
