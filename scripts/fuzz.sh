#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ with clang 14 (ASan + UBSan, CUDA off) in build-fuzz/
# and runs each for SECONDS (default 60) from its seeds in fuzz/corpus/<harness>/; what a run
# adds to the corpus stays in build-fuzz/corpus/<harness>/ and is read again by the next run.
# Fails (nonzero) when any harness finds a crash, a leak, a sanitizer report, a timeout or an
# out-of-memory, naming the harness and the input it saved (build-fuzz/artifacts/<harness>/).
#   scripts/fuzz.sh [SECONDS [HARNESS...]]      e.g. scripts/fuzz.sh 300 camera_path
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
all=(weights_file weights_header sequence_json exr_frame camera_path gltf_text gltf_binary)
harnesses=("$@")
((${#harnesses[@]})) || harnesses=("${all[@]}")

source scripts/packages.sh
swinup_install_packages "${swinup_build_packages[@]}" "${swinup_clang_packages[@]}"

source scripts/clang_sanitized_build.sh
swinup_configure_clang_build build-fuzz -DSWINUP_FUZZ=ON -DSWINUP_BUILD_TESTS=OFF
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}"

export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_SYMBOLIZER_PATH
ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer || true)"

failed=()
printf '%-16s %10s %8s %8s\n' harness runs runs/s corpus
for h in "${harnesses[@]}"; do
  corpus="build-fuzz/corpus/$h"
  artifacts="build-fuzz/artifacts/$h"
  log="build-fuzz/logs/$h.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  : >"$log"
  status=0
  # The shipped weights files (1.4 MB each) once, through the branch that makes a context: they
  # are no seeds, as mutations of them would be cut to libFuzzer's 1 MB input limit, and
  # every one kept would add a megabyte to the corpus. The fuzzing starts from their headers.
  if [ "$h" = weights_file ]; then
    "build-fuzz/fuzz/fuzz_$h" -artifact_prefix="$artifacts/" weights/*.safetensors >>"$log" 2>&1 ||
      status=$?
  fi
  # -timeout: one input taking 25 s is a hang; -rss_limit_mb: libFuzzer's default, stated.
  ((status)) || "build-fuzz/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "fuzz/corpus/$h" >>"$log" 2>&1 ||
    status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  printf '%-16s %10s %8s %8s\n' "$h" "${runs:--}" "${rate:--}" "$(find "$corpus" -type f | wc -l)"
  if [ "$status" -ne 0 ]; then
    failed+=("$h")
    echo "---- fuzz_$h failed (exit $status); its log, $log, ends:"
    grep -v "^#[0-9]" "$log" | tail -n 60 || true
    grep -o 'Test unit written to .*' "$log" | tail -1 || true
  fi
done
if ((${#failed[@]})); then
  echo "scripts/fuzz.sh: FAILED: ${failed[*]}"
  exit 1
fi
echo "scripts/fuzz.sh: no crash, leak or sanitizer report in ${harnesses[*]} (${seconds} s each)"
