// The 16-lane AVX-512 form of the vector operations the CPU backend's kernels are written over
// (Lanes), and the rounding and exact-mode functions of cpu/simd/lane_math.inc compiled for it.
// Compiled for AVX-512 in every x86-64 build (cpu/simd/simd_target.h); callers run it only when
// simd_level() is avx512 and keep a scalar path for other processors.
#pragma once

#include <cstddef>

#include "cpu/simd/simd_target.h"

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX512_BEGIN

namespace swinup::cpu::avx512 {

// The intrinsics by their names without the _mm512_ prefix; comparisons give a bit per lane.
struct Lanes {
    static constexpr int kLanes = 16;
    using Vec = __m512;
    using Ints = __m512i;
    using Halves = __m256i;
    using Mask = __mmask16;
    using Tail = __mmask16;

    static Vec setzero_ps() { return _mm512_setzero_ps(); }
    static Vec set1_ps(float v) { return _mm512_set1_ps(v); }
    static Ints set1_epi32(int v) { return _mm512_set1_epi32(v); }
    static Vec loadu_ps(const float* p) { return _mm512_loadu_ps(p); }
    static Vec broadcast_ss(const float* p) { return _mm512_set1_ps(*p); }
    static void storeu_ps(float* p, Vec v) { _mm512_storeu_ps(p, v); }

    static Vec add_ps(Vec a, Vec b) { return _mm512_add_ps(a, b); }
    static Vec sub_ps(Vec a, Vec b) { return _mm512_sub_ps(a, b); }
    static Vec mul_ps(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
    static Vec div_ps(Vec a, Vec b) { return _mm512_div_ps(a, b); }
    static Vec min_ps(Vec a, Vec b) { return _mm512_min_ps(a, b); }
    static Vec max_ps(Vec a, Vec b) { return _mm512_max_ps(a, b); }
    static Vec fmadd_ps(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
    static Vec round_nearest_ps(Vec x) {
        return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    static Halves cvtps_ph(Vec x) { return _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    static Vec cvtph_ps(Halves h) { return _mm512_cvtph_ps(h); }

    static Ints castps_si(Vec x) { return _mm512_castps_si512(x); }
    static Vec castsi_ps(Ints x) { return _mm512_castsi512_ps(x); }
    static Ints cvtps_epi32(Vec x) { return _mm512_cvtps_epi32(x); }
    static Ints and_si(Ints a, Ints b) { return _mm512_and_si512(a, b); }
    static Ints or_si(Ints a, Ints b) { return _mm512_or_si512(a, b); }
    static Ints add_epi32(Ints a, Ints b) { return _mm512_add_epi32(a, b); }
    template <int kBits>
    static Ints srli_epi32(Ints a) { return _mm512_srli_epi32(a, kBits); }
    template <int kBits>
    static Ints slli_epi32(Ints a) { return _mm512_slli_epi32(a, kBits); }

    static Mask cmpgt_epi32(Ints a, Ints b) { return _mm512_cmpgt_epi32_mask(a, b); }
    static Mask cmplt_ps(Vec a, Vec b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
    static Mask cmpunord_ps(Vec a, Vec b) { return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q); }
    // Lanes where `m` is set take b, the others a.
    static Vec blend(Mask m, Vec a, Vec b) { return _mm512_mask_blend_ps(m, a, b); }

    // Lanes [0, n) (n <= 16), for the tails of arrays; a masked load reads 0 in the other lanes.
    static Tail first_lanes(size_t n) { return n >= 16 ? Tail(0xffff) : Tail((1u << n) - 1u); }
    static Vec maskload_ps(const float* p, Tail m) { return _mm512_maskz_loadu_ps(m, p); }
    static void maskstore_ps(float* p, Tail m, Vec v) { _mm512_mask_storeu_ps(p, m, v); }
};

#include "cpu/simd/lane_math.inc"

}  // namespace swinup::cpu::avx512

SWINUP_TARGET_AVX512_END
#endif  // SWINUP_SIMD_X86
