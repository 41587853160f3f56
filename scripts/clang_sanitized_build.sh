# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: configures a clang 14 build (CUDA off) with
# -O2 and line tables, so that sanitizer reports name file:line; no NDEBUG, so the asserts stay on.
#   swinup_configure_clang_build BUILD_DIR CMAKE_ARGS...
swinup_configure_clang_build() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only" \
    -DSWINUP_CUDA=OFF -DSWINUP_BUILD_BENCH=OFF "$@" ${SWINUP_CMAKE_ARGS:-}
}
