// AVX-512 versions of the scalar rounding and exact-mode functions (numeric/e4m3.h, numeric/half.h,
// numeric/exact_math.h): the same operation sequences, 16 lanes at a time, giving the same bits
// (tests/numeric/test_arithmetic.cpp checks them lane by lane against the scalar definitions).
// Compiled for AVX-512 in every x86-64 build (cpu/simd/simd_target.h); callers run it only when
// simd_level() is avx512 and keep a scalar path for other processors.
#pragma once

#include <cstddef>

#include "cpu/simd/simd_target.h"

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX512_BEGIN

namespace swinup::cpu::simd {

// round_to_e4m3: for |x| >= 2^-6 round the f32 mantissa to 3 bits (nearest even) in the integer
// domain; below, e4m3 is subnormal with a fixed unit of 2^-9, and (|x| + 2^14) - 2^14 rounds to
// that unit (nearest even) in one f32 addition. Then saturate to 448 (Inf included); NaN -> NaN.
inline __m512 round_e4m3(__m512 x) {
    const __m512i bits = _mm512_castps_si512(x);
    const __m512i sign = _mm512_and_si512(bits, _mm512_set1_epi32(int(0x80000000u)));
    const __m512i abs = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff));
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(abs, 20), _mm512_set1_epi32(1));
    const __m512i normal = _mm512_and_si512(
        _mm512_add_epi32(abs, _mm512_add_epi32(_mm512_set1_epi32(0x7ffff), lsb)),
        _mm512_set1_epi32(int(0xfff00000u)));
    const __m512 absf = _mm512_castsi512_ps(abs);
    const __m512 magic = _mm512_set1_ps(16384.0f);
    const __m512 subnormal = _mm512_sub_ps(_mm512_add_ps(absf, magic), magic);
    const __mmask16 is_subnormal = _mm512_cmplt_epi32_mask(abs, _mm512_set1_epi32(0x3c800000));
    __m512 r = _mm512_mask_blend_ps(is_subnormal, _mm512_castsi512_ps(normal), subnormal);
    // min_ps returns its second operand when the first is NaN (a carry out of the largest floats).
    r = _mm512_min_ps(r, _mm512_set1_ps(448.0f));
    r = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), sign));
    const __mmask16 is_nan = _mm512_cmpgt_epi32_mask(abs, _mm512_set1_epi32(0x7f800000));
    return _mm512_mask_blend_ps(is_nan, r, _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000)));
}

// round_to_f16 through the F16C conversion (IEEE round to nearest even, subnormals, overflow to
// Inf), identical to numeric/half.h for every non-NaN input.
inline __m512 round_f16(__m512 x) {
    return _mm512_cvtph_ps(_mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// exact::exp2, lane by lane the same sequence.
inline __m512 exp2(__m512 x) {
    const __mmask16 is_nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    const __mmask16 underflow = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-126.0f), _CMP_LT_OQ);
    const __m512 xc = _mm512_min_ps(x, _mm512_set1_ps(127.0f));
    const __m512 n = _mm512_roundscale_ps(xc, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 f = _mm512_sub_ps(xc, n);
    __m512 p = _mm512_set1_ps(1.5403530393381609e-4f);
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.3333558146428443e-3f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.6181291076284772e-3f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.5504108664821580e-2f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.4022650695910071e-1f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.9314718055994531e-1f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
    const __m512i ni = _mm512_cvtps_epi32(n);  // n is an integer: exact
    const __m512 scale = _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_add_epi32(ni, _mm512_set1_epi32(127)), 23));
    const __m512 scale_low = _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_add_epi32(ni, _mm512_set1_epi32(127 + 64)), 23));
    const __mmask16 two_steps = _mm512_cmplt_epi32_mask(ni, _mm512_set1_epi32(-125));
    __m512 r = _mm512_mul_ps(p, scale);
    r = _mm512_mask_mul_ps(r, two_steps, _mm512_mul_ps(p, scale_low),
                           _mm512_set1_ps(5.42101086242752217e-20f));
    r = _mm512_mask_blend_ps(underflow, r, _mm512_setzero_ps());
    return _mm512_mask_blend_ps(is_nan, r, x);
}

// exact::tanh.
inline __m512 tanh(__m512 y) {
    const __m512 e = exp2(_mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(2.0f), y),
                                        _mm512_set1_ps(1.44269504088896340736f)));
    const __m512 one = _mm512_set1_ps(1.0f);
    return _mm512_sub_ps(one, _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(one, e)));
}

// exact::gelu.
inline __m512 gelu(__m512 x) {
    const __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
    const __m512 inner = _mm512_mul_ps(_mm512_set1_ps(0.7978845608028654f),
                                       _mm512_fmadd_ps(_mm512_set1_ps(0.044715f), x3, x));
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x),
                         _mm512_add_ps(_mm512_set1_ps(1.0f), tanh(inner)));
}

// Lanes [0, n) of a mask (n <= 16), for the tails of arrays.
inline __mmask16 first_lanes(size_t n) {
    return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u);
}

}  // namespace swinup::cpu::simd

SWINUP_TARGET_AVX512_END
#endif  // SWINUP_SIMD_X86
