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
