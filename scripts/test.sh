#!/usr/bin/env bash
# README command 2: install, build, run the whole test suite: the C++ tests with CTest (GPU tests
# report "skipped" without a GPU), then the PyTorch reference's tests (scripts/python_tests.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 600 "$@"
bash scripts/python_tests.sh
