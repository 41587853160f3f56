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
# No Vulkan driver is loaded into the instrumented process for the CPU suite: `swinup info` and
# the tests that look for a Vulkan device find none (they say so, or skip).
export VK_ICD_FILENAMES=/nonexistent/swinup-sanitize-no-driver.json VK_DRIVER_FILES=/nonexistent/swinup-sanitize-no-driver.json
status=0
ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)" --timeout 1800 -LE "gpu|vulkan" "$@" || status=1

# The Vulkan tests on lavapipe (the validation layer on, as in the plain suite): Mesa's driver and
# the layer run inside the instrumented process, uninstrumented. They leave allocations at exit
# that LeakSanitizer would report, from modules the loader has unloaded by then (so no
# suppression could name them): both are preloaded, which keeps them mapped, and their own
# allocations are suppressed by library (scripts/lsan_vulkan_driver.supp). swinup's are not.
# The examples' programs are left out: the preloaded layer's exported vkGet*ProcAddr would stand in
# for the loader's in a program that does not enable the layer (the plain suite runs them).
# Measured 2026-12-07 on the 2-core machine: 171 tests, about 6 minutes.
lib=/usr/lib/x86_64-linux-gnu
export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
LSAN_OPTIONS="suppressions=$PWD/scripts/lsan_vulkan_driver.supp:print_suppressions=0" \
LD_PRELOAD="$lib/libvulkan_lvp.so:$lib/libVkLayer_khronos_validation.so" \
  ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)" --timeout 1800 -L vulkan -LE "gpu|example" "$@" ||
  status=1
exit $status
