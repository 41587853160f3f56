// Compiling a function for more instructions than the build's target: code between
// SWINUP_TARGET_AVX2_BEGIN / _END (or the AVX-512 pair) may use those intrinsics, in any build;
// it must only run after simd_level() said the processor has them. Include every header
// before a BEGIN: only functions defined inside the region get the wider target, so inline
// functions of shared headers never get a copy that needs instructions the processor may lack.
#pragma once

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define SWINUP_SIMD_X86 1
#include <immintrin.h>
#else
#define SWINUP_SIMD_X86 0
#endif

#if SWINUP_SIMD_X86 && defined(__clang__)
#define SWINUP_TARGET_BEGIN_(features) \
    _Pragma(SWINUP_STRINGIFY_(clang attribute push(__attribute__((target(features))), apply_to = function)))
#define SWINUP_TARGET_END_ _Pragma("clang attribute pop")
#elif SWINUP_SIMD_X86
#define SWINUP_TARGET_BEGIN_(features) \
    _Pragma("GCC push_options") _Pragma(SWINUP_STRINGIFY_(GCC target(features)))
#define SWINUP_TARGET_END_ _Pragma("GCC pop_options")
#endif
#define SWINUP_STRINGIFY_(x) #x

#if SWINUP_SIMD_X86
#define SWINUP_TARGET_AVX2_BEGIN SWINUP_TARGET_BEGIN_("avx2,fma,f16c")
#define SWINUP_TARGET_AVX2_END SWINUP_TARGET_END_
#define SWINUP_TARGET_AVX512_BEGIN \
    SWINUP_TARGET_BEGIN_("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")
#define SWINUP_TARGET_AVX512_END SWINUP_TARGET_END_
#endif
