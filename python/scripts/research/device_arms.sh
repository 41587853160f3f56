#!/usr/bin/env bash
# Several training arms side by side on a GPU machine, each exported and scored on the held-out
# breakfast_room, in one call: what an A/B comparison needs.
#   1. renders the training sequences (render_training_data.sh; not when every arm only scores)
#      and the evaluation sequences (device_eval.sh's), both skipped when a warm machine still
#      has them;
#   2. trains every arm for MINUTES from its start checkpoint (read only) into its own run folder,
#      $WORK/NAME, all at once, the GPUs taken in turn (several arms share a GPU: the steps are
#      launch-bound, so they overlap); an arm whose start is its own folder's checkpoint continues
#      that run (--resume), an arm that starts elsewhere replaces what its folder held;
#   3. exports each arm and scores it on breakfast_room (CUDA, exact mode; swinup only: the
#      baselines score the same in every run, BASELINES=1 adds them), and with PROCEDURAL=1 on
#      device_eval.sh's ten procedural sequences too (the shipping rule's second check);
#   4. packs checkpoints, weights and logs into $OUT/checkpoints.tgz (as soon as the arms are
#      trained) and the scores into $OUT/scores.tgz (few files: the GPU machine returns 8).
#
# Usage:
#   SWINUP_BIN=.devrun bash python/scripts/research/device_arms.sh MINUTES 'NAME|VARIANT|CHECKPOINT|OPTIONS[|RANKS]' ...
#   CHECKPOINT: a path relative to the repository (e.g. python/checkpoints/lite.pt) or absolute;
#   OPTIONS: train.py options besides --variant, --minutes, --run-dir, --start, --resume and the data;
#   RANKS: data-parallel ranks on the arm's GPU (torchrun, gloo; default 1), each with OPTIONS' --batch.
#   An arm whose CHECKPOINT is a weights file (.safetensors) is scored only, as it is.
#   PROCEDURAL=1: score on the procedural sequences too (default 0, breakfast_room only).
#   SCORE=0: train (and render the evaluation sequences) but do not score the trained arms.
#   PYTHON_SCORE=1: score the trained arms with score_python.py (PyTorch fast mode) instead of
#   `swinup eval`: what an arm with an experiment needs, since export refuses its checkpoint.
#   Scores: arms/NAME/score_python.jsonl, one JSON line per sequence.
# COMMON: options given to every arm before its own. Scores: arms/NAME/eval/SEQUENCE/{summary.txt,VARIANT.json}.
# Fixed arms are scored FIXED_AT_ONCE at a time (default 6; fewer leave the GPU to the training), the
# first one with the baselines (the margins' reference), the others without. They are scored while
# the arms train unless the trainings' planned memory (train_gib) fills more than 80% of a GPU:
# then after them (a call on 2026-12-01 ran out of GPU memory with 5 ranks, 123 GiB of peaks,
# beside a CUDA evaluation of full and the GPU tests, and lost its lite arm). Arms whose
# plan exceeds a GPU's memory are refused before anything runs (gpu_jobs.sh, train_gib).
set -uo pipefail
MINUTES=$1
shift
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${OUT:-$ROOT/out/arms}
PYTHON=${PYTHON:-python3}
DATA=${DATA:-/tmp/swinup_data}
WORK=${WORK:-/tmp/swinup_arms}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT" "$WORK"
SWINUP=$(bash "$ROOT/python/scripts/find_cli.sh")
if [ -n "${SWINUP_BIN:-}" ]; then
  export LD_LIBRARY_PATH="$ROOT/$SWINUP_BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
source "$ROOT/python/scripts/gpu_jobs.sh"
read -r -a GPUS <<< "$(gpu_list)"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }

scores_only() {  # start: an arm whose start is a weights file is scored as it is, not trained
  [[ $1 == *.safetensors ]]
}
gpu_gib() {  # the GPU's memory in GiB, 0 when nvidia-smi cannot tell
  local total
  total=$( (nvidia-smi -i "$1" --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null || echo 0) | head -1)
  echo $((total / 1024))
}
# 0. The memory plan, before anything runs: arms that cannot fit together on their GPU stop the
#    call here rather than one of them running out of memory minutes later (a call on 2026-12-02
#    lost its control arm that way). The training arms take the GPUs in turn.
declare -A planned_gib=() arm_gpu=()
k=0
for arm in "$@"; do
  IFS='|' read -r name variant start options ranks <<< "$arm"
  case "$start" in /*) ;; *) start="$ROOT/$start" ;; esac
  { [ -f "$start" ] && ! scores_only "$start"; } || continue
  gpu=${GPUS[$((k % ${#GPUS[@]}))]}
  arm_gpu[$name]=$gpu
  # shellcheck disable=SC2086
  gib=$(train_gib "$variant" "${ranks:-1}" ${COMMON:-} $options)
  planned_gib[$gpu]=$(( ${planned_gib[$gpu]:-0} + gib ))
  stamp "arm $name: about $gib GiB on GPU $gpu"
  k=$((k + 1))
done
for gpu in "${!planned_gib[@]}"; do
  total_gib=$(gpu_gib "$gpu")
  if ((total_gib && planned_gib[$gpu] > total_gib)); then
    echo "device_arms: the arms on GPU $gpu plan about ${planned_gib[$gpu]} GiB, more than its $total_gib GiB;" \
         "give them fewer ranks or smaller batches, or run them in two calls" >&2
    exit 1
  fi
done
# 1. The training data, only when an arm trains (an arm with a missing start does not).
if ((${#planned_gib[@]})) && [ ! -f "$DATA/.complete" ]; then
  bash "$ROOT/python/scripts/render_training_data.sh" "$SWINUP" "$DATA" > "$OUT/render.log" 2>&1 &&
    touch "$DATA/.complete" || { tail -20 "$OUT/render.log"; exit 1; }
fi
stamp "training data: $(ls -d "$DATA"/*/ 2>/dev/null | wc -l) sequences"
data_args=()
for d in "$DATA"/*/; do data_args+=(--data "$d"); done

score() {  # name [baselines 0|1]: device_eval.sh on the arm's weights, swinup alone unless asked
  local dir="$WORK/$1" variant
  variant=$(cat "$dir/variant")
  [ -f "$dir/$variant.safetensors" ] || return 1
  OUT="$dir" PROCEDURAL=${PROCEDURAL:-0} VARIANTS="$variant" BASELINES=${2:-0} PICTURES=0 \
    bash "$ROOT/python/scripts/device_eval.sh" "$dir" > "$dir/eval.log" 2>&1
  tar xzf "$dir/eval.tgz" -C "$dir" && rm -f "$dir/eval.tgz"
}
# 2. Train every arm at once; meanwhile render the evaluation sequences and score the arms that
#    only score.
names=()
fixed=()
trained=()
pids=()
rm -f "$WORK/.trained"
k=0
for arm in "$@"; do
  IFS='|' read -r name variant start options ranks <<< "$arm"
  case "$start" in /*) ;; *) start="$ROOT/$start" ;; esac
  dir="$WORK/$name"
  # A missing start stops the arm here (train.py would refuse it too, after the rendering).
  [ -f "$start" ] || { echo "arm $name: no start checkpoint $start, skipped"; continue; }
  mkdir -p "$dir"
  names+=("$name")
  echo "$variant" > "$dir/variant"
  if scores_only "$start"; then
    cp "$start" "$dir/$variant.safetensors"
    fixed+=("$name")
    continue
  fi
  if [ "$start" -ef "$dir/$variant.pt" ]; then
    run=(--resume "$dir")  # the arm's own checkpoint: a chained chunk of its run
  else
    rm -f "$dir/$variant.pt" "$dir/$variant.safetensors"  # an earlier arm of this name: replaced
    run=(--run-dir "$dir" --start "$start")
  fi
  gpu=${arm_gpu[$name]}
  (
    cd "$ROOT/python"
    launch=("$PYTHON" -m swinup.train)
    if [ "${ranks:-1}" -gt 1 ]; then  # data parallel on the arm's one GPU (gloo: NCCL wants a GPU a rank)
      launch=(torchrun --nnodes 1 --nproc_per_node "$ranks" --master_port $((29500 + k)) -m swinup.train
              --dist-backend gloo)
    fi
    # shellcheck disable=SC2086
    CUDA_VISIBLE_DEVICES=$gpu "${launch[@]}" --variant "$variant" \
      "${run[@]}" --minutes "$MINUTES" "${data_args[@]}" ${COMMON:-} $options \
      > "$dir/train.log" 2>&1 &&
      $PYTHON -m swinup.export "$dir" --variant "$variant" --force >> "$dir/train.log" 2>&1
  ) &
  pids+=($!)
  trained+=("$name")
  k=$((k + 1))
done
# Score the fixed arms beside the training only where it leaves room on every GPU.
score_beside=1
for gpu in "${!planned_gib[@]}"; do
  total_gib=$(gpu_gib "$gpu")
  stamp "GPU $gpu: the trainings plan about ${planned_gib[$gpu]} GiB of $( ((total_gib)) && echo "$total_gib GiB" || echo "an unknown size (no nvidia-smi reading)")"
  if ((total_gib == 0 || planned_gib[$gpu] * 10 > total_gib * 8)); then score_beside=0; fi
done
if ((${#fixed[@]} && ${#trained[@]} && !score_beside)); then
  stamp "the fixed arms are scored after the training: too little GPU memory beside it (or its size unknown)"
fi
(
  RENDER_ONLY=1 PROCEDURAL=${PROCEDURAL:-0} OUT="$WORK/render_eval" bash "$ROOT/python/scripts/device_eval.sh" none \
    > "$OUT/render_eval.log" 2>&1 || { echo "rendering the evaluation sequences failed:"; tail "$OUT/render_eval.log"; }
  # The rendering is small; the scoring waits for the training when they would not fit together.
  if ((!score_beside)); then while [ ! -f "$WORK/.trained" ]; do sleep 5; done; fi
  running=()
  for i in "${!fixed[@]}"; do
    score "${fixed[$i]}" $((i == 0 ? 1 : ${BASELINES:-0})) &
    running+=($!)
    if ((${#running[@]} >= ${FIXED_AT_ONCE:-6})); then wait "${running[0]}"; running=("${running[@]:1}"); fi
  done
  wait
) &
scored_fixed=$!
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { echo "arm ${trained[$i]} failed:"; tail -15 "$WORK/${trained[$i]}/train.log"; }
done
touch "$WORK/.trained"
stamp "trained ${#trained[@]} arms"
# What the training made comes back even if the scoring below runs past the call's limit.
((${#trained[@]})) && tar czf "$OUT/checkpoints.tgz" -C "$WORK" "${trained[@]}"

# 3. Score the trained arms on breakfast_room, all at once (SCORE=0: not in this call; a chained
#    chunk continues them in the next call on the warm machine, and is scored there).
wait "$scored_fixed"
if [ "${SCORE:-1}" = 0 ]; then stamp "SCORE=0: the trained arms are not scored"; exit 0; fi
pids=()
score_python() {  # name: score_python.py on every rendered evaluation sequence
  local dir="$WORK/$1" seqs=()
  for s in "${SEQ_DIR:-/tmp/swinup_eval}"/*/; do [ -f "$s/sequence.json" ] && seqs+=(--seq "$s"); done
  (cd "$ROOT/python" && "$PYTHON" scripts/research/score_python.py --variant "$(cat "$dir/variant")" \
    "$dir/$(cat "$dir/variant").pt" "${seqs[@]}") > "$dir/score_python.jsonl" 2> "$dir/score_python.log"
}
for name in "${trained[@]}"; do
  if [ "${PYTHON_SCORE:-0}" = 1 ]; then score_python "$name" & else score "$name" & fi
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for name in "${names[@]}"; do
  dir="$WORK/$name"
  echo "== arm $name ($(cat "$dir/variant")): $(grep -E "^step" "$dir/train.log" 2>/dev/null | tail -1)"
  cat "$dir"/eval/*/summary.txt "$dir"/score_python.jsonl 2>/dev/null
done
stamp "scored"

# 4. The scores in one archive (the GPU machine returns at most 8 files).
(cd "$WORK" && tar czf "$OUT/scores.tgz" --ignore-failed-read "${names[@]/%//eval}" "${names[@]/%//eval.log}" \
  "${names[@]/%//score_python.jsonl}" "${names[@]/%//score_python.log}" 2>/dev/null)
stamp "packed $(ls "$OUT")"
