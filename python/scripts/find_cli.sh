#!/usr/bin/env bash
# Prints the path of a swinup CLI with the CUDA renderer for the device scripts: $SWINUP_BIN/swinup
# when a build was carried (the device image lacks the Debian -dev packages; its shared libraries
# sit in $SWINUP_BIN/lib), else builds one in /tmp/build (needs those packages and nvcc).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${SWINUP_BIN:-}" ]; then
  case "$SWINUP_BIN" in /*) echo "$SWINUP_BIN/swinup" ;; *) echo "$ROOT/$SWINUP_BIN/swinup" ;; esac
  exit 0
fi
cmake -S "$ROOT" -B /tmp/build -G Ninja -DSWINUP_CUDA=ON -DSWINUP_BUILD_TESTS=OFF \
      -DSWINUP_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/cmake.log
cmake --build /tmp/build --target swinup_cli -j"$(nproc)" > /tmp/build.log
echo /tmp/build/tools/swinup/swinup
