#!/usr/bin/env bash
# Installs the Debian 12 packages simgrad builds with (only those missing) and configures and
# builds build/ in Release: the targets named as arguments (scripts/demo.sh builds only the
# command line, `simgrad`), or everything. Run as root on a fresh machine; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium opens report.html in a test; clang and libomp-dev build the sanitizer build and the scenario fuzzer (build-sanitize/);
# python3 calls the C API through ctypes in a test; python3-dev and pybind11-dev build the Python
# package, whose tests run under python3-pytest with python3-numpy and python3-torch (Debian's CPU
# build, a few hundred MB, not the registry's CUDA one); libpng-dev writes the PNG frames;
# libtinygltf-dev reads exported glTF files back in a test; libpugixml-dev reads MJCF models; libmujoco-dev is MuJoCo's C engine, which the rigid-body tests
# and benchmarks check simgrad against (its CMake target names /usr/include/libqhull_r, which only
# libqhull-dev installs: Debian's libmujoco-dev does not depend on it); mpi-default-dev and
# mpi-default-bin (Open MPI and its mpirun) build and test the MPI layer (dist/), which the build
# below turns on.
packages=(g++ cmake make libeigen3-dev nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev chromium clang libomp-dev
          libpugixml-dev libmujoco-dev libqhull-dev python3 libpng-dev libtinygltf-dev
          python3-dev pybind11-dev python3-numpy python3-pytest python3-torch mpi-default-dev mpi-default-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}"
fi

jobs=$(nproc)
# The CUDA toolkit, where the machine has one, compiles the element bodies as device code
# (docs/gpu.md); it is often installed off PATH.
cuda=()
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
# Debian's interpreter, which has the packages above (not one earlier on PATH, such as pyenv's).
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=/usr/bin/python3 -DSIMGRAD_MPI=ON "${cuda[@]}" > /dev/null
if [ $# -gt 0 ]; then
  cmake --build build -j "$jobs" --target "$@"
else
  cmake --build build -j "$jobs"
fi
