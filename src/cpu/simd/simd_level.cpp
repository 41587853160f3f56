#include "cpu/simd/simd_level.h"

#include <atomic>

#include "cpu/simd/simd_target.h"

#if SWINUP_SIMD_X86
#include <cpuid.h>
#endif

namespace swinup::cpu {

namespace {

#if SWINUP_SIMD_X86
// F16C is CPUID leaf 1, ECX bit 29; clang 14's __builtin_cpu_supports does not know its name.
bool has_f16c() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_F16C) != 0;
}
#endif

SimdLevel detect() {
#if SWINUP_SIMD_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("fma") && has_f16c())
        return SimdLevel::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c())
        return SimdLevel::avx2;
#endif
    return SimdLevel::scalar;
}

std::atomic<SimdLevel>& current() {
    static std::atomic<SimdLevel> level{simd_level_supported()};
    return level;
}

}  // namespace

SimdLevel simd_level_supported() {
    static const SimdLevel supported = detect();
    return supported;
}

SimdLevel simd_level() { return current().load(std::memory_order_relaxed); }

void set_simd_level(SimdLevel level) {
    const SimdLevel best = simd_level_supported();
    current().store(static_cast<int>(level) < static_cast<int>(best) ? level : best,
                    std::memory_order_relaxed);
}

const char* simd_level_name(SimdLevel level) {
    switch (level) {
        case SimdLevel::avx512: return "avx512";
        case SimdLevel::avx2: return "avx2";
        case SimdLevel::scalar: break;
    }
    return "scalar";
}

}  // namespace swinup::cpu
