#!/usr/bin/env bash
# Installs what `simgrad bench` compares against beyond the build: Debian's python3-torch for the
# contagion benchmark's plain-PyTorch peer (bench/peers/contagion_torch.py). Large (about 1 GB),
# so it is not part of scripts/setup.sh or the tests; without it the benchmark says so.
set -euo pipefail
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq python3-torch
fi
