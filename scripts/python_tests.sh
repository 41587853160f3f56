#!/usr/bin/env bash
# The PyTorch reference's tests on Debian 12's CPU-only torch (python3-torch 1.13): installs the
# Debian packages they need, runs every test in python/tests with the system Python, then
# python/scripts/check_against_cpp.py (the Python roundings and exact math against the C++
# headers, compiled with g++, bit for bit). Tests that need a newer torch (float8 dtypes,
# torch.compile) report "skipped" with the reason. Exits nonzero if anything fails.
# About 3 minutes of CPU on two cores (python/README.md has the measured times).
set -euo pipefail
cd "$(dirname "$0")/.."

# /usr/bin/python3 explicitly: it sees Debian's python3-torch; another python3 first on PATH
# (pyenv, a virtual environment) may have no torch or another one.
PYTHON=/usr/bin/python3
source scripts/packages.sh
swinup_install_packages "${swinup_python_packages[@]}"
"$PYTHON" -c 'import torch, numpy; print(f"torch {torch.__version__}, numpy {numpy.__version__}")'

status=0
start=$(date +%s)
# -v: one line a test, skips with their reasons.
"$PYTHON" -m unittest discover -s python/tests -t python/tests -v || status=1
echo "python tests: unittest took $(($(date +%s) - start)) s"
start=$(date +%s)
"$PYTHON" python/scripts/check_against_cpp.py || status=1
echo "python tests: check_against_cpp.py took $(($(date +%s) - start)) s"
[ "$status" -eq 0 ] && echo "python tests: all passed" || echo "python tests: FAILED" >&2
exit "$status"
