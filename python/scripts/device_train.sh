#!/usr/bin/env bash
# One chunk of training on a GPU machine:
#   1. renders the training sequences with the CUDA renderer (render_training_data.sh),
#   2. trains for MINUTES into a run folder, RUN_DIR, starting from the shipped
#      python/checkpoints/<variant>.pt (read only; --start CHECKPOINT in the options for another),
#   3. exports into the run folder and copies checkpoint, weights and log to $OUT.
# The shipped files are never written: fetch $OUT, then `python -m swinup.promote OUT_DIR --variant V`
# replaces them (python/README.md).
#
# Usage:
#   [SWINUP_BIN=.devrun] bash python/scripts/device_train.sh MODE MINUTES [train.py options...]
# MODE: lite | full      one variant on GPU 0
#       pair             lite on GPU 0 and full on GPU 1 at the same time (a 2-GPU machine)
#       ddp-lite|ddp-full one variant over every GPU with torchrun (data parallel)
# ARGS_lite, ARGS_full: extra train.py options for one variant (e.g. its --batch and --crop).
# RUN_DIR: the run folder (default python/runs/device-<UTC time>; both variants of a pair share it).
# RESUME=1: continue the runs in RUN_DIR (an earlier call on a machine that kept it) instead.
# SWINUP_BIN: a CLI built elsewhere with -DSWINUP_CUDA=ON, carried with its non-glibc shared
# libraries in $SWINUP_BIN/lib (the GPU machine's image lacks the Debian -dev packages), e.g. .devrun.
set -euo pipefail
MODE=${1:-lite}
MINUTES=${2:-6}
shift 2 || true
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/out/train}
PYTHON=${PYTHON:-python3}
DATA=${DATA:-/tmp/swinup_data}
RUN_DIR=$(realpath -m "${RUN_DIR:-$ROOT/python/runs/device-$(date -u +%Y%m%dT%H%M%SZ)}")
if [ "${RESUME:-0}" = 1 ]; then RUN=(--resume "$RUN_DIR"); else RUN=(--run-dir "$RUN_DIR"); fi
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"

SWINUP=$(bash "$ROOT/python/scripts/find_cli.sh")
if [ -n "${SWINUP_BIN:-}" ]; then
  export LD_LIBRARY_PATH="$ROOT/$SWINUP_BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
t0=$(date +%s)
bash "$ROOT/python/scripts/render_training_data.sh" "$SWINUP" "$DATA" > "$OUT/render.log" 2>&1 ||
  { tail -20 "$OUT/render.log"; exit 1; }
echo "training data: $(ls -d "$DATA"/*/ | wc -l) sequences in $(($(date +%s) - t0)) s"
ARGS=()
for d in "$DATA"/*/; do ARGS+=(--data "$d"); done

cd "$ROOT/python"
train_one() {  # variant gpu
  local per_variant="ARGS_$1"  # ARGS_lite / ARGS_full: options for one variant only
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=$2 $PYTHON -m swinup.train --variant "$1" "${RUN[@]}" --minutes "$MINUTES" "${ARGS[@]}" \
    "${EXTRA[@]}" ${!per_variant:-} \
    > "$OUT/train_$1.log" 2>&1 || { echo "train $1 failed:"; tail -15 "$OUT/train_$1.log"; return 1; }
}
export_one() {  # the run folder's export (--force: a resumed run's earlier one), then both into $OUT
  $PYTHON -m swinup.export "$RUN_DIR" --variant "$1" --force >> "$OUT/train_$1.log" 2>&1
  cp "$RUN_DIR/$1.pt" "$RUN_DIR/$1.safetensors" "$OUT/"
  grep -E "^swinup train|^loaded|^step|^saved|^wrote|memory|Error" "$OUT/train_$1.log" | awk 'NR<=3 || /saved|wrote|memory|Error/ || NR%10==0'
}
EXTRA=("$@")
case "$MODE" in
  lite|full)
    train_one "$MODE" 0; export_one "$MODE" ;;
  pair)
    train_one lite 0 & p1=$!
    train_one full 1 & p2=$!
    s=0; wait $p1 || s=1; wait $p2 || s=1
    export_one lite || s=1; export_one full || s=1
    exit $s ;;
  ddp-lite|ddp-full)
    v=${MODE#ddp-}
    source "$ROOT/python/scripts/gpu_jobs.sh"
    n=$(gpu_list | wc -w)
    torchrun --standalone --nproc_per_node "$n" -m swinup.train --variant "$v" "${RUN[@]}" --minutes "$MINUTES" \
      "${ARGS[@]}" "${EXTRA[@]}" > "$OUT/train_$v.log" 2>&1
    export_one "$v" ;;
  *) echo "unknown mode $MODE" >&2; exit 2 ;;
esac
