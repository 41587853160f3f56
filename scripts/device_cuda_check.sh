#!/usr/bin/env bash
# The CUDA checks in one call on the GPU machine: GPU tests, compute-sanitizer (memcheck and
# racecheck) on small tests, and `swinup bench`; every log goes under $OUT (default out/device).
#
#   scripts/device_cuda_check.sh [BIN_DIR]
#
# BIN_DIR holds test_cuda_kernels, test_cuda_network, test_cuda_backend, test_cuda_output, test_cuda_masks,
# test_cuda_reactive_mask, test_cuda_fusion and swinup (and lib/ with their shared libraries when they were built on another
# machine). Without BIN_DIR the script
# builds them in build-device (needs nvcc and the Debian packages of scripts/setup.sh).
# The 2026-11-30 run used binaries built on the development machine (build-cuda, sm_89 + sm_90)
# copied with their non-glibc shared libraries (ldd) into an ignored folder .devrun/{.,lib};
# scripts/pack_device_build.sh does that (configure the build with -DSWINUP_NATIVE=OFF).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/device}
mkdir -p "$OUT"
BIN=${1:-}
if [ -z "$BIN" ]; then
  cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DSWINUP_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/build.log" 2>&1 &&
    cmake --build build-device -j"$(nproc)" --target swinup_cli test_cuda_kernels test_cuda_network \
      test_cuda_backend test_cuda_output test_cuda_fusion test_cuda_masks test_cuda_reactive_mask >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  mkdir -p build-device/bin
  cp build-device/tools/swinup/swinup build-device/tests/test_cuda_* build-device/bin/
  BIN=build-device/bin
fi
export LD_LIBRARY_PATH="$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/gpu.txt" 2>&1
status=0
for t in test_cuda_kernels test_cuda_network test_cuda_backend test_cuda_output test_cuda_fusion test_cuda_masks \
         test_cuda_reactive_mask; do
  echo "== $t"
  "$BIN/$t" >"$OUT/$t.log" 2>&1 || status=1
  grep -E "^\[ +(PASSED|FAILED|SKIPPED) +\]|measured|Failure|error" "$OUT/$t.log" | head -40
done
echo "== bench"
"$BIN/swinup" bench --precision fast --iterations 200 >"$OUT/bench_fast.txt" 2>&1 || status=1
"$BIN/swinup" bench --precision exact --iterations 100 --render 1280x720 --display 3840x2160 \
  >"$OUT/bench_exact.txt" 2>&1 || status=1
# The fused kernels' share: the same build with all of them off (the layer-by-layer reference).
"$BIN/swinup" bench --variant lite --precision fast --iterations 200 --render 1280x720 --display 3840x2160 \
  --unfused all >"$OUT/bench_unfused.txt" 2>&1 || status=1
grep -E "^## |whole evaluation|ceilings" "$OUT/bench_fast.txt" "$OUT/bench_exact.txt" "$OUT/bench_unfused.txt"
# The candidate kernels (swinup bench --with) against these defaults: scripts/device_cuda_speed_check.sh.
# The sanitizers on small problems (they slow kernels down 10-100x), after the bench so that a
# short call still gets the timings. QUICK=1: one test each of the network (GEMM, norm, attention
# kernels), the backend in fast mode (the output pre-pass that also writes the recurrent state),
# every fused kernel (the all-fused cases of both variants, a block as two half kernels and as
# one) and the output pass, each under 3
# minutes; else the backend's exact and device-pointer cases too.
echo "== compute-sanitizer"
source scripts/device_sanitize.sh
for tool in memcheck racecheck; do
  if [ "${QUICK:-0}" = 1 ]; then
    sanitize "$tool" test_cuda_network '*LiteExactMatchesCpuOddFrame'
    sanitize "$tool" test_cuda_backend '*LiteFastRgba16fWithinBound'
  else
    sanitize "$tool" test_cuda_network '*LiteExactMatchesCpuOddFrame:*FullFastWithinBound'
    sanitize "$tool" test_cuda_backend '*LiteExactRgba8MatchesCpu:*LiteFastRgba16fWithinBound:*DevicePointersEqualHostPointers'
  fi
  sanitize "$tool" test_cuda_fusion '*/LiteFastAll:*/FullExactAll:*/LiteFastAllBlock:*/FullExactAllBlock'
  sanitize "$tool" test_cuda_output '*Scale3WithHistory:CudaOutputKernels.BothCandidatesEqualPerPixelKernels'
  sanitize "$tool" test_cuda_reactive_mask '*'
done
exit $status
