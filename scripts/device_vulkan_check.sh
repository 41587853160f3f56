#!/usr/bin/env bash
# The Vulkan checks in one call on a machine with an NVIDIA GPU and its Vulkan driver: the Vulkan
# tests on that device, the CUDA backend on Vulkan images, the Vulkan sample against `swinup
# upscale` on both backends, the CUDA memory, graph-cache and mask tests, then the benches of
# docs/performance.md's Vulkan and interop tables. Every log goes under $OUT (default
# out/device-vulkan).
#
#   scripts/device_vulkan_check.sh
#
# Needs nvcc, the Debian packages of scripts/setup.sh (libvulkan-dev and glslang-tools among them)
# and the Vulkan loader (libvulkan1) next to the NVIDIA driver. SWINUP_VULKAN_DEVICE picks the
# device (default: the first whose name holds "NVIDIA"); SWINUP_VULKAN_VALIDATION=0 runs without
# the Khronos validation layer where it is not installed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/device-vulkan}
mkdir -p "$OUT"
export SWINUP_VULKAN_DEVICE=${SWINUP_VULKAN_DEVICE:-NVIDIA}
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DSWINUP_CUDA=ON -DSWINUP_VULKAN=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/build.log" 2>&1 &&
  cmake --build build-device -j"$(nproc)" >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/gpu.txt" 2>&1
status=0
# The GoogleTest programs are run directly (their CTest lists need the CMake that configured them).
for t in build-device/tests/test_vulkan_* build-device/tests/test_cuda_vulkan_interop \
         build-device/tests/test_cuda_memory build-device/tests/test_cuda_backend \
         build-device/tests/test_cuda_masks build-device/tests/test_cuda_reactive_mask; do
  [ -x "$t" ] || continue
  echo "== $(basename "$t")"
  (cd build-device/tests && "../../$t") >"$OUT/$(basename "$t").log" 2>&1 || status=1
  grep -E "^\[ +(PASSED|FAILED|SKIPPED) +\]|device|Failure" "$OUT/$(basename "$t").log" | head -20
done
echo "== the Vulkan sample against swinup upscale, both backends"
# The test's own script, run directly: a CTest of another CMake version than the one that
# configured the build cannot read the GoogleTest lists and so runs no test at all.
for backend in vulkan cuda; do
  (cd build-device && cmake -DPROGRAM="$PWD/examples/vulkan_upscale" -DCLI="$PWD/tools/swinup/swinup" \
    -DBACKEND=$backend -DWORK="$PWD/examples/vulkan_upscale_$backend" \
    -P ../examples/check_vulkan_upscale.cmake) >"$OUT/example_vulkan_upscale_$backend.log" 2>&1 || status=1
  echo "$backend: $(tail -1 "$OUT/example_vulkan_upscale_$backend.log")"
done
echo "== swinup bench --backend vulkan (per stage, GPU timestamps)"
for v in "lite 1280x720" "full 1280x720" "lite 1920x1080" "full 1920x1080"; do
  set -- $v
  for p in fast exact; do
    build-device/tools/swinup/swinup bench --backend vulkan --variant "$1" --render "$2" \
      --display 3840x2160 --precision "$p" --iterations 50 >"$OUT/bench_vulkan_$1_$2_$p.txt" 2>&1 || status=1
    grep -m1 -iE "whole frame|median" "$OUT/bench_vulkan_$1_$2_$p.txt" | sed "s/^/$1 $2 $p: /"
  done
done
echo "== CUDA device pointers, CUDA on Vulkan images, the Vulkan backend (one run)"
build-device/bench/bench_vulkan_interop >"$OUT/bench_interop.txt" 2>&1 || status=1
tail -20 "$OUT/bench_interop.txt"
exit $status
