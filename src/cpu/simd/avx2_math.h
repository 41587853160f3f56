// AVX2 versions of the scalar rounding and exact-mode functions (numeric/e4m3.h, numeric/half.h,
// numeric/exact_math.h), line for line the AVX-512 ones of cpu/simd/avx512_math.h with 8 lanes and
// blends for masks: the same operation sequences, so the same bits as the scalar definitions
// (tests/cpu/test_simd_levels.cpp). Compiled for AVX2 + FMA + F16C in every x86-64 build;
// callers run it only when simd_level() is avx2 or higher.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/simd/simd_target.h"

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX2_BEGIN

namespace swinup::cpu::simd2 {

// Lanes where `mask` is set take b, the others a.
inline __m256 select(__m256 mask, __m256 a, __m256 b) { return _mm256_blendv_ps(a, b, mask); }

// round_to_e4m3 (see avx512_math.h for the two cases and the saturation).
inline __m256 round_e4m3(__m256 x) {
    const __m256i bits = _mm256_castps_si256(x);
    const __m256i sign = _mm256_and_si256(bits, _mm256_set1_epi32(int(0x80000000u)));
    const __m256i abs = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(abs, 20), _mm256_set1_epi32(1));
    const __m256i normal = _mm256_and_si256(
        _mm256_add_epi32(abs, _mm256_add_epi32(_mm256_set1_epi32(0x7ffff), lsb)),
        _mm256_set1_epi32(int(0xfff00000u)));
    const __m256 absf = _mm256_castsi256_ps(abs);
    const __m256 magic = _mm256_set1_ps(16384.0f);
    const __m256 subnormal = _mm256_sub_ps(_mm256_add_ps(absf, magic), magic);
    // abs is non-negative, so the signed comparison is the unsigned one.
    const __m256 is_subnormal = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(0x3c800000), abs));
    __m256 r = select(is_subnormal, _mm256_castsi256_ps(normal), subnormal);
    // min_ps returns its second operand when the first is NaN (a carry out of the largest floats).
    r = _mm256_min_ps(r, _mm256_set1_ps(448.0f));
    r = _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(r), sign));
    const __m256 is_nan = _mm256_castsi256_ps(_mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000)));
    return select(is_nan, r, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)));
}

// round_to_f16 through F16C (IEEE round to nearest even), identical for every non-NaN input.
inline __m256 round_f16(__m256 x) {
    return _mm256_cvtph_ps(_mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// exact::exp2, lane by lane the same sequence.
inline __m256 exp2(__m256 x) {
    const __m256 is_nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    const __m256 underflow = _mm256_cmp_ps(x, _mm256_set1_ps(-126.0f), _CMP_LT_OQ);
    const __m256 xc = _mm256_min_ps(x, _mm256_set1_ps(127.0f));
    const __m256 n = _mm256_round_ps(xc, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256 f = _mm256_sub_ps(xc, n);
    __m256 p = _mm256_set1_ps(1.5403530393381609e-4f);
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.3333558146428443e-3f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(9.6181291076284772e-3f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(5.5504108664821580e-2f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(2.4022650695910071e-1f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(6.9314718055994531e-1f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
    const __m256i ni = _mm256_cvtps_epi32(n);  // n is an integer: exact
    const __m256 scale = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(ni, _mm256_set1_epi32(127)), 23));
    const __m256 scale_low = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(ni, _mm256_set1_epi32(127 + 64)), 23));
    const __m256 two_steps = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(-125), ni));
    __m256 r = _mm256_mul_ps(p, scale);
    r = select(two_steps, r,
               _mm256_mul_ps(_mm256_mul_ps(p, scale_low), _mm256_set1_ps(5.42101086242752217e-20f)));
    r = select(underflow, r, _mm256_setzero_ps());
    return select(is_nan, r, x);
}

// exact::tanh.
inline __m256 tanh(__m256 y) {
    const __m256 e = exp2(_mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(2.0f), y),
                                        _mm256_set1_ps(1.44269504088896340736f)));
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(one, e)));
}

// exact::gelu.
inline __m256 gelu(__m256 x) {
    const __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
    const __m256 inner = _mm256_mul_ps(_mm256_set1_ps(0.7978845608028654f),
                                       _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), x3, x));
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x),
                         _mm256_add_ps(_mm256_set1_ps(1.0f), tanh(inner)));
}

// Lanes [0, n) (n <= 8) as a maskload/maskstore mask, for the tails of arrays.
inline __m256i first_lanes(size_t n) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)), lane);
}

}  // namespace swinup::cpu::simd2

SWINUP_TARGET_AVX2_END
#endif  // SWINUP_SIMD_X86
