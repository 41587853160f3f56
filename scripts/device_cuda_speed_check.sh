#!/usr/bin/env bash
# The CUDA speed work's GPU checks in one call (docs/performance.md, "CUDA backend"): every
# candidate kernel's byte-identity tests and the GPU suites, before/after timings of every switch
# alternated in one run on one card, the per-kernel table of the default, compute-sanitizer on the
# new kernels, and the PyTorch peers. Logs under $OUT (default out/device); a summary on stdout.
#
#   scripts/device_cuda_speed_check.sh [BIN_DIR]
#
# BIN_DIR (default .devrun) as scripts/pack_device_build.sh leaves it, or holding bins.tar.xz of
# such a folder (smaller to carry; unpacked here). A second build's `swinup` in BIN_DIR/before
# (or before.tar.xz; scripts/pack_device_bins.sh --cli-only) is timed in the same rounds as
# "before": the before/after of the whole change on one card. STEPS (default "tests bench detail sanitize
# peers") picks parts; ROUNDS (default 2) the alternations of the timed configurations; TESTS the
# GPU test programs; WITH_KINDS the candidate kernels (`swinup bench --with`) timed against the
# default.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/device}
mkdir -p "$OUT"
BIN=${1:-.devrun}
STEPS=${STEPS:-tests bench detail sanitize peers}
ROUNDS=${ROUNDS:-2}
[ -f "$BIN/bins.tar.xz" ] && [ ! -x "$BIN/swinup" ] && tar xJf "$BIN/bins.tar.xz" -C "$BIN"
[ -f "$BIN/before.tar.xz" ] && [ ! -x "$BIN/before/swinup" ] && mkdir -p "$BIN/before" &&
  tar xJf "$BIN/before.tar.xz" -C "$BIN/before"
export LD_LIBRARY_PATH="$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
status=0

if has tests; then
  for t in ${TESTS:-test_cuda_fusion test_cuda_output test_cuda_input_statistics test_cuda_network \
             test_cuda_backend test_cuda_masks test_cuda_kernels test_cuda_ops test_cuda_reactive_mask}; do
    [ -x "$BIN/$t" ] || { echo "== $t: not in $BIN"; continue; }
    timeout 300 "$BIN/$t" >"$OUT/$t.log" 2>&1 || status=1
    echo "== $t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$t.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$OUT/$t.log" | head -20
  done
fi

# Whole evaluations (CUDA graph, median of the runs) per configuration: the default (the kernels
# checked on a GPU), each candidate alone and all of them (`--with KIND`, src/cuda/backend/
# network_fusions.h and src/cuda/frame/output_kernels.h), alternated ROUNDS times so that the
# card's drift falls on all of them alike.
configs=("" ${WITH_KINDS:-teams block output counts all})
[ -x "$BIN/before/swinup" ] && configs=(before "${configs[@]}")
sizes=("lite fast 1280x720 3840x2160 200" "full fast 1920x1080 3840x2160 200" "lite exact 1280x720 3840x2160 100"
       "full fast 1280x720 3840x2160 200" "lite fast 1920x1080 3840x2160 200" "full exact 1920x1080 3840x2160 100")
sizes=("${sizes[@]:0:${NSIZES:-6}}")  # NSIZES: only the first sizes (a short call)
if has bench; then
  for round in $(seq "$ROUNDS"); do
    for s in "${sizes[@]}"; do
      read -r variant precision render display iterations <<<"$s"
      for c in "${configs[@]}"; do
        tag="${variant}_${precision}_${render}_${c:-default}_r$round"
        args=(bench --variant "$variant" --precision "$precision" --iterations "$iterations" --render "$render"
              --display "$display")
        program="$BIN/swinup"
        if [ "$c" = before ]; then
          program="$BIN/before/swinup"
        elif [ -n "$c" ]; then
          args+=(--with "$c")
        fi
        LD_LIBRARY_PATH="$(dirname "$program")/lib:$LD_LIBRARY_PATH" "$program" "${args[@]}" \
          >"$OUT/bench_${tag//,/+}.txt" 2>&1 || status=1
        printf '%-55s %s\n' "$tag" "$(grep -oE 'median [0-9.]+ ms' "$OUT/bench_${tag//,/+}.txt" | head -1)"
      done
    done
  done
fi

if has detail; then
  for p in fast exact; do
    for c in "" all; do
      "$BIN/swinup" bench --variant lite --precision "$p" --iterations 200 --render 1280x720 --display 3840x2160 \
        --detail ${c:+--with $c} >"$OUT/detail_lite_${p}${c:+_with_$c}.txt" 2>&1 || status=1
    done
  done
  "$BIN/swinup" bench --variant full --precision fast --iterations 200 --render 1920x1080 --display 3840x2160 \
    --detail >"$OUT/detail_full_fast_1080p.txt" 2>&1 || status=1
fi

# The sanitizers on small problems (they slow kernels 10-100x): the new kernels' tests.
if has sanitize; then
  SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-150}
  source scripts/device_sanitize.sh
  for tool in memcheck racecheck; do
    sanitize "$tool" test_cuda_fusion "${SANITIZE_FUSION:-Cases/CudaFusion.FusedEqualsUnfused/LiteFastAll:Cases/CudaFusion.FusedEqualsUnfused/FullExactAll}"
    sanitize "$tool" test_cuda_output "${SANITIZE_OUTPUT:-CudaOutputKernels.BothCandidatesEqualPerPixelKernels}"
    sanitize "$tool" test_cuda_input_statistics "${SANITIZE_COUNTS:-*FastDevicePublished:*ExactHostPublished}"
  done
fi

if has peers; then
  # The ratio's CUDA figure: the network's stages (the frame passes left out), which is what the
  # peers time.
  network_ms() { grep -oE "frame passes left out\) sum to [0-9.]+" "$1" 2>/dev/null | grep -oE '[0-9.]+$'; }
  lite_ms=$(network_ms "$OUT"/bench_lite_fast_1280x720_all_r1.txt)
  full_ms=$(network_ms "$OUT"/bench_full_fast_1280x720_all_r1.txt)
  timeout "${PEER_TIMEOUT:-300}" python3 python/scripts/peer_bench.py --variant both --render 1280x720 \
    --iterations 200 --warmup 20 --compile-mode default ${lite_ms:+--cuda-ms lite=$lite_ms,full=$full_ms} \
    >"$OUT/peers.txt" 2>&1 || status=1
  tail -8 "$OUT/peers.txt"
fi
exit $status
