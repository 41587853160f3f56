// Which vector instructions the CPU backend's kernels use, chosen at run time: a portable build
// (the default) runs on any x86-64 and still uses AVX2 or AVX-512 where the processor has them.
// Every level gives the same bits as the scalar code: the kernels vectorise across independent
// outputs and keep each output's operation sequence (docs/model-spec.md), so the level only
// changes the speed (tests/cpu/test_simd_levels.cpp checks each level the machine has).
#pragma once

namespace swinup::cpu {

enum class SimdLevel {
    scalar = 0,  // plain C++ (whatever the compiler makes of it for the build's target)
    avx2 = 1,    // AVX2 + FMA (x86-64-v3)
    avx512 = 2,  // AVX-512 F/BW/DQ/VL + F16C + FMA (x86-64-v4)
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
