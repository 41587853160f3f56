#!/usr/bin/env bash
# Installs swinup's build dependencies (Debian 12 packages) and builds it in ./build.
# Used by scripts/demo.sh and scripts/test.sh, the README's two commands.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config  # pkg-config: tests/package
  libopenexr-dev libimath-dev   # sequences: OpenEXR frames (colour, depth, motion, ground truth)
  libpng-dev                    # pictures people look at
  nlohmann-json3-dev            # sequence.json, weights headers, reports
  libcli11-dev                  # the swinup command line
  libtinygltf-dev libstb-dev    # glTF 2.0 scenes and their PNG/JPEG textures
  libtbb-dev                    # the CPU backend's and renderer's threads
  libgtest-dev libgmock-dev     # tests
  libbenchmark-dev              # benchmarks
)
bash scripts/install_debian_packages.sh "${packages[@]}"

# The CUDA backend is built when nvcc is there (it compiles without a GPU; it runs on sm_89+).
cuda_args=()
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" ${SWINUP_CMAKE_ARGS:-}
cmake --build build -j "$jobs"
