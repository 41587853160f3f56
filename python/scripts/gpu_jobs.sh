# Sourced by the device scripts: which GPUs to use, and a small job pool over them.

# The GPU indices to use, space-separated: $1 when given (e.g. "0" while GPU 1 does something
# else), else every GPU nvidia-smi lists, else 0 (no GPU: the jobs run on the CPU).
gpu_list() {
  if [ -n "${1:-}" ]; then echo "$1"; return; fi
  local n
  n=$( (nvidia-smi -L 2>/dev/null || true) | wc -l)
  if ((n > 0)); then seq -s ' ' 0 $((n - 1)); else echo 0; fi
}

# run_on_gpus GPUS FN JOB...: runs `FN JOB GPU` for every job in the background, four at a time
# (renders and evaluations also load the CPU: EXR files, TAAU), the GPUs of the list GPUS taken in
# turn. Waits for all of them; returns 1 if any failed.
run_on_gpus() {
  local -a gpus
  read -r -a gpus <<< "$1"
  local fn=$2
  shift 2
  local k=0 status=0 pids=() job
  for job in "$@"; do
    "$fn" "$job" "${gpus[$((k % ${#gpus[@]}))]}" &
    pids+=($!)
    k=$((k + 1))
    if ((${#pids[@]} >= 4)); then
      wait "${pids[0]}" || status=1
      pids=("${pids[@]:1}")
    fi
  done
  local p
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  return $status
}

# train_gib VARIANT RANKS OPTIONS...: GiB a training of this variant and these train.py options
# takes on its GPU, all its ranks together, as nvidia-smi counts it. Per rank: torch's peak
# allocation, measured on the H200 at 128-pixel crops as a fixed part plus a part per clip
# (lite 5 + 1.75 a clip: 19 GiB at batch 8, 21-23 at 10; full 8.5 + 2.1 a clip: 21 at batch 6,
# 30 at 10, 38 at 14), the per-clip part scaled by the crop's area, plus 5 GiB a rank for the
# CUDA context and what the caching allocator holds beyond the peak (a call on 2026-12-02,
# ranks with 19-21 GiB peaks held 20-27 GiB each, and six of them ran out of the
# H200's 140). --head-mlp and --pixel-mlp add about 1 GiB a rank, --history-clip as much (its
# lite rank peaked at 20 GiB against its control's 19). The last --batch and --crop count, as in
# argparse; train.py's defaults are batch 16 and crop 96.
train_gib() {
  local variant=$1 ranks=$2 batch=16 crop=96 prev="" extra=0
  shift 2
  for w in "$@"; do
    case $prev in --batch) batch=$w ;; --crop) crop=$w ;; esac
    case $w in --head-mlp | --pixel-mlp | --history-clip) extra=10 ;; esac
    prev=$w
  done
  local fixed=50 per_clip=175  # lite: tenths of a GiB, hundredths a clip
  [ "$variant" = full ] && { fixed=85; per_clip=210; }
  local tenths=$(( fixed + 50 + extra + (batch * per_clip * crop * crop / (128 * 128) + 5) / 10 ))
  echo $(( (ranks * tenths + 9) / 10 ))
}
