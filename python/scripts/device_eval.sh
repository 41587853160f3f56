#!/usr/bin/env bash
# The quality table of docs/quality.md on the GPU machine: renders the held-out breakfast_room
# (carried as .pydata/scenes/breakfast_room) at 960x540 -> 1920x1080 (2x) and 640x360 -> 1920x1080
# (3x), 32 frames, its own camera (pan), LDR and HDR, and the five procedural scenes at
# 480x270 -> 960x540 and 320x180 -> 960x540 (LDR, 32 frames; training renders them at display
# 768x432, and the seed, 9001, only places the ground truth's samples); then
# `swinup eval` of bilinear, TAAU and swinup lite (CUDA backend, exact mode), and swinup full.
# Usage: [SWINUP_BIN=.devrun] bash python/scripts/device_eval.sh WEIGHTS_DIR
#   WEIGHTS_DIR holds lite.safetensors and full.safetensors. Results: $OUT/eval.tgz (eval/<sequence>/:
#   summary.txt, lite.txt/json, full.txt/json, crops in lite/ and full/).
#   PROCEDURAL=0: breakfast_room only; FULL=0: lite only (quick A/B runs); VARIANTS="full": the
#   variants to score (default "lite full", or "lite" with FULL=0), each into <variant>.json;
#   BASELINES=0: swinup alone (bilinear and TAAU score the same in every run); RENDER_ONLY=1: render
#   the sequences into SEQ_DIR and score nothing (device_arms.sh, while its arms train); PICTURES=0:
#   no crops.
set -uo pipefail
WEIGHTS=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/out/eval}
SEQ=${SEQ_DIR:-/tmp/swinup_eval}
SWINUP=$(bash "$ROOT/python/scripts/find_cli.sh")
if [ -n "${SWINUP_BIN:-}" ]; then
  export LD_LIBRARY_PATH="$ROOT/$SWINUP_BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
FRAMES=${FRAMES:-32}
mkdir -p "$SEQ" "$OUT/eval"
ROOM=${ROOM:-$ROOT/.pydata/scenes/breakfast_room/BreakfastRoom.gltf}
render() {  # name scene render display extra...
  local name=$1 scene=$2 r=$3 d=$4
  shift 4
  [ -d "$SEQ/$name" ] || "$SWINUP" render "$scene" -o "$SEQ/$name" --frames "$FRAMES" --render "$r" \
    --display "$d" --device "${RENDER_DEVICE:-cuda}" --seed 9001 "$@" > "$SEQ/$name.log" 2>&1 ||
    { echo "render $name failed"; tail -5 "$SEQ/$name.log"; return 1; }
}
source "$ROOT/python/scripts/gpu_jobs.sh"
jobs_list=()
if [ -f "$ROOM" ]; then
  jobs_list+=("room_2x_ldr|$ROOM|960x540|1920x1080|" "room_3x_ldr|$ROOM|640x360|1920x1080|"
              "room_2x_hdr|$ROOM|960x540|1920x1080|--hdr" "room_3x_hdr|$ROOM|640x360|1920x1080|--hdr")
fi
if [ "${PROCEDURAL:-1}" = 1 ]; then
  for s in ${SCENES:-showcase fence moire text spinner}; do
    jobs_list+=("${s}_2x|$s|480x270|960x540|" "${s}_3x|$s|320x180|960x540|")
  done
fi
VARIANTS=${VARIANTS:-$([ "${FULL:-1}" = 1 ] && echo "lite full" || echo lite)}
evaluate() {  # job gpu: render (if missing), then score bilinear and TAAU (with the first variant) and each variant
  IFS='|' read -r n scene r d extra <<< "$1"
  export CUDA_VISIBLE_DEVICES=$2
  # shellcheck disable=SC2086
  render "$n" "$scene" "$r" "$d" $extra || return 1
  [ "${RENDER_ONLY:-0}" = 1 ] && return 0
  local o="$OUT/eval/$n" methods=bilinear,taau,swinup v
  [ "${BASELINES:-1}" = 1 ] || methods=swinup
  mkdir -p "$o"
  for v in $VARIANTS; do
    local pictures=(--pictures "$o/$v")
    [ "${PICTURES:-1}" = 1 ] || pictures=()
    "$SWINUP" eval "$SEQ/$n" --methods "$methods" --variant "$v" --weights "$WEIGHTS/$v.safetensors" \
      --backend "${EVAL_BACKEND:-cuda}" --precision exact --json "$o/$v.json" "${pictures[@]}" > "$o/$v.txt" 2>&1
    methods=swinup
  done
  { echo "== $n"
    for v in $VARIANTS; do grep -hE "^(bilinear|taau|swinup) " "$o/$v.txt" | sed "s/^swinup/$v  /"; done
  } > "$o/summary.txt"
}
# Four sequences at a time over the GPUs (TAAU and the EXR files use the CPU). EVAL_GPUS: the GPU
# indices to use (default all), e.g. "0" while GPU 1 does something else.
run_on_gpus "$(gpu_list "${EVAL_GPUS:-}")" evaluate "${jobs_list[@]}" || echo "some evaluations failed"
[ "${RENDER_ONLY:-0}" = 1 ] && exit 0
cat "$OUT"/eval/*/summary.txt
# One archive: the GPU machine brings back a limited number of files.
tar czf "$OUT/eval.tgz" -C "$OUT" eval && rm -rf "$OUT/eval"
