#!/usr/bin/env bash
# README command 1: install, build, run `swinup demo` (writes out/demo/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
./build/tools/swinup/swinup demo "$@"
