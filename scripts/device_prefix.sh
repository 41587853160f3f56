#!/usr/bin/env bash
# The build's Debian packages for a GPU machine whose image has nvcc, CMake, ninja and the NVIDIA
# driver but not the -dev packages of scripts/packages.sh, nor the Vulkan loader.
#
#   scripts/device_prefix.sh download DIR   here (Debian 12, apt-get): the .deb files into DIR
#   scripts/device_prefix.sh install DIR    there, as root: DIR's libraries and headers unpacked
#                                           into /opt/deps; the Vulkan loader, the validation layer
#                                           and GLVND (which the NVIDIA Vulkan driver needs) into /
#
# After `install`, with the two exports it prints:
#   cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSWINUP_CUDA=ON \
#     -DCMAKE_CUDA_ARCHITECTURES=90 -DSWINUP_BUILD_BENCH=ON -DCMAKE_PREFIX_PATH=/opt/deps/usr \
#     -DCMAKE_INCLUDE_PATH=/opt/deps/usr/include -DCMAKE_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
#   cmake --build build-gpu -j"$(nproc)"
# and run the test programs directly (build-gpu/tests/test_*; a CTest of another CMake version
# than the one that configured the build cannot read the GoogleTest lists), as
# scripts/device_cuda_check.sh and scripts/device_vulkan_check.sh do.
# The 2026-12-05 H200 runs of docs/performance.md were built this way.
set -euo pipefail
MODE=${1:-}
DIR=${2:-}
[ -n "$MODE" ] && [ -n "$DIR" ] || { sed -n '2,9p' "$0"; exit 2; }
# The libraries and headers the build links and includes, the shader tools, the GoogleTest and
# Google Benchmark packages, and the run-time libraries they depend on that the image lacks.
BUILD_PACKAGES=(libopenexr-dev libopenexr-3-1-30 libimath-dev libimath-3-1-29 libtbb-dev libtbb12
  libtbbmalloc2 libtbbbind-2-5 libhwloc15 libpng-dev libpng16-16 libstb-dev libstb0 libtinygltf-dev
  nlohmann-json3-dev libcli11-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libbenchmark1debian libvulkan-dev glslang-tools spirv-tools)
# Unpacked into / (the loader finds the driver's manifest and the layer there).
ROOT_PACKAGES=(libvulkan1 vulkan-validationlayers libglvnd0 libegl1 libgl1 libgles2 libglx0 libopengl0)
case "$MODE" in
  download)
    mkdir -p "$DIR/root"
    (cd "$DIR" && apt-get download "${BUILD_PACKAGES[@]}")
    (cd "$DIR/root" && apt-get download "${ROOT_PACKAGES[@]}")
    echo "downloaded $(ls "$DIR"/*.deb "$DIR"/root/*.deb | wc -l) packages into $DIR ($(du -sh "$DIR" | cut -f1))"
    ;;
  install)
    mkdir -p /opt/deps
    for f in "$DIR"/*.deb; do dpkg -x "$f" /opt/deps; done
    for f in "$DIR"/root/*.deb; do dpkg -x "$f" /; done
    ldconfig
    echo "unpacked into /opt/deps and /; now, in the shell that builds and runs:"
    echo "  export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
    echo "  export PATH=/opt/deps/usr/bin:\$PATH"
    ;;
  *)
    echo "device_prefix.sh: the mode is download or install, not '$MODE'" >&2
    exit 2
    ;;
esac
