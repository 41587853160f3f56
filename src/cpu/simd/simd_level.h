// Which vector instructions the CPU backend's kernels use, chosen at run time: a portable build
// (the default) runs on any x86-64 and still uses AVX2 or AVX-512 where the processor has them.
// Every level gives the same bits as the scalar code: the kernels vectorise across independent
// outputs and keep each output's operation sequence (docs/model-spec.md), so the level only
// changes the speed (tests/cpu/test_simd_levels.cpp checks each level the machine has).
#pragma once

namespace swinup::cpu {

enum class SimdLevel {
    scalar = 0,  // plain C++ (whatever the compiler makes of it for the build's target)
    avx2 = 1,    // AVX2 + FMA + F16C: AVX2 kernels for the matrix product and the element-wise
                 // roundings; attention and the output pass run the scalar code compiled for
                 // these instructions (std::fma one instruction, not a library call)
    avx512 = 2,  // AVX-512 F/BW/DQ/VL + F16C + FMA: AVX-512 kernels for the matrix product,
                 // the element-wise roundings and window attention
};

// The best level this processor and this build support (scalar on non-x86 builds).
SimdLevel simd_level_supported();

// The level the kernels use now: simd_level_supported() unless lowered by set_simd_level().
SimdLevel simd_level();

// Use at most `level` (clamped to what is supported). For tests and benchmarks that compare the
// paths; not thread-safe against a running frame.
void set_simd_level(SimdLevel level);

const char* simd_level_name(SimdLevel level);

}  // namespace swinup::cpu

// `SWINUP_SIMD_DISPATCH(fn, args...)` in a function body: returns avx512::fn(args...),
// avx2::fn(args...) or scalar::fn(args...) by simd_level(); the calling file defines the three.
// Builds for other processors have only the scalar one.
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define SWINUP_SIMD_DISPATCH(fn, ...)                                     \
    switch (::swinup::cpu::simd_level()) {                                \
        case ::swinup::cpu::SimdLevel::avx512: return avx512::fn(__VA_ARGS__); \
        case ::swinup::cpu::SimdLevel::avx2: return avx2::fn(__VA_ARGS__);     \
        case ::swinup::cpu::SimdLevel::scalar: break;                     \
    }                                                                     \
    return scalar::fn(__VA_ARGS__)
#else
#define SWINUP_SIMD_DISPATCH(fn, ...) return scalar::fn(__VA_ARGS__)
#endif
