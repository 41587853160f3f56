#!/usr/bin/env bash
# The CPU test suite under AddressSanitizer + UndefinedBehaviorSanitizer, built with clang 14 in
# build-sanitize/ (CUDA off): the first report of either, a leak included, fails its test
# (-fno-sanitize-recover=all, detect_leaks=1). It is also the check that swinup builds with
# clang as well as g++. Arguments go to ctest (e.g. -R Weights). docs/security.md says more.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/packages.sh
swinup_install_packages "${swinup_build_packages[@]}" "${swinup_clang_packages[@]}"

source scripts/clang_sanitized_build.sh
swinup_configure_clang_build build-sanitize -DSWINUP_SANITIZE=ON
cmake --build build-sanitize -j "$(nproc)"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_SYMBOLIZER_PATH
ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer || true)"
# The GPU tests would only skip here (no CUDA in this build). ASan and UBSan make the CPU
# network about three times slower, hence the longer timeout.
# The Vulkan tests (label vulkan) run in the plain suite, on lavapipe with the validation layer;
# they have not been run under the sanitizers yet (Mesa's driver would run inside the instrumented
# process, and its own allocations would need leak suppressions), so they are left out here.
# No Vulkan driver is loaded into the instrumented process either: `swinup info` and the tests
# that look for a Vulkan device find none (they say so, or skip), since Mesa's lavapipe leaves
# allocations LeakSanitizer reports from an unloaded module (seen 2026-12-04 in `swinup info`).
export VK_ICD_FILENAMES=/nonexistent/swinup-sanitize-no-driver.json VK_DRIVER_FILES=/nonexistent/swinup-sanitize-no-driver.json
ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)" --timeout 1800 -LE "gpu|vulkan" "$@"
