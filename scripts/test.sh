#!/usr/bin/env bash
# README command 2: install, build, run the test suite (GPU tests report "skipped" without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 600 "$@"
