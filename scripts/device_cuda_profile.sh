#!/usr/bin/env bash
# Where a lite frame's time goes on the GPU machine, in one call: `swinup bench --detail` (fast and
# exact, 1280x720 -> 3840x2160) and Nsight Compute's counters for every kernel of a frame (the
# first frame's graph, then a later frame's output pass, which has a history to sample). Logs go
# under $OUT (default out/device).
#
#   scripts/device_cuda_profile.sh [BIN_DIR]     # BIN_DIR as in scripts/device_cuda_speed_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/device}
mkdir -p "$OUT"
BIN=${1:-.devrun}
[ -f "$BIN/bins.tar.xz" ] && [ ! -x "$BIN/swinup" ] && tar xJf "$BIN/bins.tar.xz" -C "$BIN"
export LD_LIBRARY_PATH="$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
size=(--render 1280x720 --display 3840x2160)
for p in fast exact; do
  "$BIN/swinup" bench --variant lite --precision "$p" --iterations 200 "${size[@]}" --detail >"$OUT/detail_lite_$p.txt" 2>&1
  grep -E "whole evaluation" "$OUT/detail_lite_$p.txt"
done
# The counters: clocks left as they are (METHOD.md), a few sections per kernel.
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
          --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis)
ncu_run() {  # name precision ncu-args...
  local name=$1 precision=$2
  shift 2
  timeout 240 ncu --clock-control none "${sections[@]}" "$@" "$BIN/swinup" bench --variant lite \
    --precision "$precision" --iterations 100 "${size[@]}" >"$OUT/ncu_$name.txt" 2>&1
  echo "ncu $name: exit $? ($(grep -c '^  [a-z_].*(' "$OUT/ncu_$name.txt") kernels)"
}
ncu_run frame_fast fast -c 60
ncu_run output_fast fast -k regex:output_fast --launch-skip 4 -c 1
ncu_run output_exact exact -k regex:output_kernel --launch-skip 4 -c 1
ncu_run frame_exact exact -k regex:'gemm|mlp|attention|tail' -c 24
