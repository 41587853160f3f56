# Sourced by the device scripts (scripts/device_cuda_check.sh, scripts/device_cuda_speed_check.sh):
# sanitize TOOL TEST FILTER runs $BIN/TEST's gtest FILTER under compute-sanitizer's TOOL (memcheck,
# racecheck) with a time limit of SANITIZER_TIMEOUT seconds (default 180), logs to
# $OUT/sanitizer_TOOL_TEST.log and prints the exit status and the tool's summary line.
sanitize() {  # tool test filter
  local log="$OUT/sanitizer_$1_$2.log"
  timeout "${SANITIZER_TIMEOUT:-180}" compute-sanitizer --tool "$1" --error-exitcode 3 "$BIN/$2" \
    --gtest_filter="$3" >"$log" 2>&1
  echo "$1 $2: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1))"
}
