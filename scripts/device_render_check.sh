#!/usr/bin/env bash
# The renderer's call on a GPU machine: the CUDA renderer against the CPU one (same frames,
# stated bounds) and its speed at 1920x1080 with 16-spp ground truth (RESULT lines), from
# tests/render/test_render_cuda.cpp. Logs go under $OUT (default out/device-render).
#
#   scripts/device_render_check.sh [BIN_DIR] [SCENES_DIR]
#
# BIN_DIR holds test_render_cuda (and lib/ with its shared libraries when it was built on another
# machine); without it the script builds it in build-device-render (needs nvcc and the Debian
# packages of scripts/setup.sh). SCENES_DIR holds breakfast_room/ and gas_station/ (the device
# machine sees only the repository: copy ../shared/scenes into an ignored folder and carry it).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/device-render}
mkdir -p "$OUT"
BIN=${1:-}
export SWINUP_RENDER_SCENES=${2:-.dev/scenes}
if [ -z "$BIN" ]; then
  cmake -S . -B build-device-render -G Ninja -DCMAKE_BUILD_TYPE=Release -DSWINUP_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/build.log" 2>&1 &&
    cmake --build build-device-render -j"$(nproc)" --target test_render_cuda >>"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
  BIN=build-device-render/tests
fi
export LD_LIBRARY_PATH="$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/gpu.txt" 2>&1
nproc >"$OUT/cpus.txt"
"$BIN/test_render_cuda" >"$OUT/test_render_cuda.log" 2>&1
status=$?
grep -E "RESULT|^\[ +(OK|PASSED|FAILED|SKIPPED) +\]|Failure|Expected|actual" "$OUT/test_render_cuda.log"
exit $status
