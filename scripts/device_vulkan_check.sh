#!/usr/bin/env bash
# The Vulkan checks in one call on a machine with an NVIDIA GPU and its Vulkan driver: what the
# device offers (`swinup info`: the fast GEMM's path and matrix shape), the Vulkan tests on that
# device (the matrix path's GEMM, whole networks and frames against the CPU, validation layer
# on), the CUDA backend on Vulkan images, the Vulkan sample against `swinup upscale` on both
# backends, the CUDA memory, graph-cache and mask tests, then the benches of docs/performance.md's
# Vulkan and interop tables: fast mode per stage on the matrix path and on the portable path
# (SWINUP_VULKAN_FAST_GEMM), against the matrix units' rate measured in the same run. Every log
# goes under $OUT (default out/device-vulkan).
#
#   scripts/device_vulkan_check.sh            everything (a CUDA + Vulkan build)
#   SWINUP_DEVICE_CUDA=OFF scripts/device_vulkan_check.sh
#                                             the Vulkan backend alone (a shorter build)
#
# Brings what the GPU machine's image lacks when the working tree carries it: .dev/debs (the
# Debian packages of scripts/device_prefix.sh download) and .whl (the pinned shader-compiler
# wheels of scripts/shader_tools.sh). SWINUP_VULKAN_DEVICE picks the device (default: the first
# whose name holds "NVIDIA"); SWINUP_VULKAN_VALIDATION=0 runs without the Khronos validation layer.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/device-vulkan}
mkdir -p "$OUT"
export SWINUP_VULKAN_DEVICE=${SWINUP_VULKAN_DEVICE:-NVIDIA}
CUDA=${SWINUP_DEVICE_CUDA:-ON}
prefix_args=()
if [ -d .dev/debs ] && [ ! -d /opt/deps/usr ]; then
  bash scripts/device_prefix.sh install .dev/debs >"$OUT/prefix.log" 2>&1 || { tail -20 "$OUT/prefix.log"; exit 1; }
fi
if [ -d /opt/deps/usr ]; then
  export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PATH=/opt/deps/usr/bin:$PATH
  prefix_args=(-DCMAKE_PREFIX_PATH=/opt/deps/usr -DCMAKE_INCLUDE_PATH=/opt/deps/usr/include
    -DCMAKE_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu)
  # libvulkan-dev's libvulkan.so points at libvulkan.so.1, which the loader package put into /.
  for lib in /usr/lib/x86_64-linux-gnu/libvulkan.so.1 /lib/x86_64-linux-gnu/libvulkan.so.1; do
    [ -e "$lib" ] && { prefix_args+=(-DVulkan_LIBRARY="$lib"); break; }
  done
fi
source scripts/packages.sh
source scripts/shader_tools.sh
swinup_install_shader_tools >"$OUT/shader_tools.log" 2>&1 || { tail -20 "$OUT/shader_tools.log"; exit 1; }
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DSWINUP_CUDA=$CUDA -DSWINUP_VULKAN=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
  cmake --build build-device -j"$(nproc)" >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
grep -E "cooperative-matrix|matrix path" "$OUT/build.log" | head -3
build-device/tools/swinup/swinup info 2>&1 | grep -i vulkan | tee "$OUT/info.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/gpu.txt" 2>&1
status=0
echo "== fast mode per stage: the matrix path against the portable path (same device, one run)"
for v in "lite 1280x720" "full 1920x1080"; do
  set -- $v
  for path in matrix portable; do
    SWINUP_VULKAN_FAST_GEMM=$path build-device/tools/swinup/swinup bench --backend vulkan --variant "$1" \
      --render "$2" --display 3840x2160 --precision fast --iterations 30 \
      >"$OUT/bench_vulkan_$1_$2_fast_$path.txt" 2>&1 || status=1
    grep -m1 -E "measured ceiling" "$OUT/bench_vulkan_$1_$2_fast_$path.txt"
    grep -E "network, all|output pass|whole frame" "$OUT/bench_vulkan_$1_$2_fast_$path.txt" | sed "s/^/$1 $2 $path: /"
  done
done
# SWINUP_DEVICE_QUICK=1: the fast-mode benches and the layer and network tests only.
tests=(build-device/tests/test_vulkan_* build-device/tests/test_cuda_vulkan_interop
       build-device/tests/test_cuda_memory build-device/tests/test_cuda_backend
       build-device/tests/test_cuda_masks build-device/tests/test_cuda_reactive_mask)
[ "${SWINUP_DEVICE_QUICK:-0}" = 1 ] && tests=(build-device/tests/test_vulkan_layers build-device/tests/test_vulkan_network)
# The GoogleTest programs are run directly (their CTest lists need the CMake that configured them).
for t in "${tests[@]}"; do
  [ -x "$t" ] || continue
  echo "== $(basename "$t")"
  (cd build-device/tests && "../../$t") >"$OUT/$(basename "$t").log" 2>&1 || status=1
  grep -E "^\[ +(PASSED|FAILED|SKIPPED) +\]|device|Failure" "$OUT/$(basename "$t").log" | head -20
done
[ "${SWINUP_DEVICE_QUICK:-0}" = 1 ] && exit $status
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
  # Exact mode (the integer-arithmetic shaders, tens of ms a frame) at 720p only.
  precisions="fast exact"
  [ "$2" = 1920x1080 ] && precisions=fast
  for p in $precisions; do
    build-device/tools/swinup/swinup bench --backend vulkan --variant "$1" --render "$2" \
      --display 3840x2160 --precision "$p" --iterations 50 >"$OUT/bench_vulkan_$1_$2_$p.txt" 2>&1 || status=1
    grep -m1 -iE "whole frame|median" "$OUT/bench_vulkan_$1_$2_$p.txt" | sed "s/^/$1 $2 $p: /"
  done
done
echo "== CUDA device pointers, CUDA on Vulkan images, the Vulkan backend (one run)"
build-device/bench/bench_vulkan_interop >"$OUT/bench_interop.txt" 2>&1 || status=1
tail -20 "$OUT/bench_interop.txt"
# Quality: the held-out breakfast_room at 2x (LDR, 32 frames, the quality table's protocol),
# swinup fast on the Vulkan backend against the CUDA backend. Needs the scene in the working tree
# (SCENES, default .dev/scenes: a copy of ../shared/scenes with its licence files).
SCENES=${SCENES:-.dev/scenes}
if [ -f "$SCENES/breakfast_room/BreakfastRoom.gltf" ] && [ "$CUDA" = ON ]; then
  echo "== breakfast_room 2x, swinup fast: Vulkan against CUDA"
  cli=build-device/tools/swinup/swinup
  "$cli" render "$SCENES/breakfast_room/BreakfastRoom.gltf" -o out/seq/room_2x_ldr --render 960x540 \
    --display 1920x1080 --frames 32 --seed 9001 --device cuda >"$OUT/room_render.log" 2>&1 || status=1
  for v in lite full; do
    for b in cuda vulkan; do
      "$cli" eval out/seq/room_2x_ldr --methods swinup --variant $v --backend $b --precision fast --no-flip \
        --json "$OUT/room_2x_${v}_fast_$b.json" >"$OUT/room_2x_${v}_fast_$b.txt" 2>&1 || status=1
      grep -E "swinup" "$OUT/room_2x_${v}_fast_$b.txt" | tail -1 | sed "s/^/$v $b: /"
    done
  done
fi
# ---- The hand-over between Vulkan and CUDA: its floor without swinup (an empty kernel
# between two Vulkan submits on the same timeline semaphores: host time of each call, Vulkan
# timestamps, CUDA events, %globaltimer), and the real frame's host time per API call.
if [ -x build-device/bench/bench_handover_floor ]; then
  echo "== the hand-over's floor (bench_handover_floor)"
  build-device/bench/bench_handover_floor --iterations 2000 >"$OUT/bench_handover_floor.txt" 2>&1 || status=1
  cat "$OUT/bench_handover_floor.txt"
  echo "== the real frame's API calls on the host (bench_vulkan_interop --host-timing, lite)"
  build-device/bench/bench_vulkan_interop --variant lite --rows cuda-pointers,cuda-vulkan,cuda-vulkan-2 \
    --host-timing >"$OUT/bench_interop_host_timing.txt" 2>&1 || status=1
  cat "$OUT/bench_interop_host_timing.txt"
fi
exit $status
