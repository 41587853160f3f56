// The 8-lane AVX2 form of the vector operations the CPU backend's kernels are written over
// (Lanes, the AVX-512 one's counterpart: cpu/simd/avx512_math.h), and the rounding and exact-mode
// functions of cpu/simd/lane_math.inc compiled for it. Compiled for AVX2 + FMA + F16C in every
// x86-64 build; callers run it only when simd_level() is avx2 or higher.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/simd/simd_target.h"

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX2_BEGIN

namespace swinup::cpu::avx2 {

// The intrinsics by their names without the _mm256_ prefix; comparisons give all-ones lanes, and
// masked loads and stores take an integer vector.
struct Lanes {
    static constexpr int kLanes = 8;
    using Vec = __m256;
    using Ints = __m256i;
    using Halves = __m128i;
    using Mask = __m256;
    using Tail = __m256i;

    static Vec setzero_ps() { return _mm256_setzero_ps(); }
    static Vec set1_ps(float v) { return _mm256_set1_ps(v); }
    static Ints set1_epi32(int v) { return _mm256_set1_epi32(v); }
    static Vec loadu_ps(const float* p) { return _mm256_loadu_ps(p); }
    static Vec broadcast_ss(const float* p) { return _mm256_broadcast_ss(p); }
    static void storeu_ps(float* p, Vec v) { _mm256_storeu_ps(p, v); }

    static Vec add_ps(Vec a, Vec b) { return _mm256_add_ps(a, b); }
    static Vec sub_ps(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
    static Vec mul_ps(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
    static Vec div_ps(Vec a, Vec b) { return _mm256_div_ps(a, b); }
    static Vec min_ps(Vec a, Vec b) { return _mm256_min_ps(a, b); }
    static Vec max_ps(Vec a, Vec b) { return _mm256_max_ps(a, b); }
    static Vec fmadd_ps(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
    static Vec round_nearest_ps(Vec x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    static Halves cvtps_ph(Vec x) { return _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    static Vec cvtph_ps(Halves h) { return _mm256_cvtph_ps(h); }

    static Ints castps_si(Vec x) { return _mm256_castps_si256(x); }
    static Vec castsi_ps(Ints x) { return _mm256_castsi256_ps(x); }
    static Ints cvtps_epi32(Vec x) { return _mm256_cvtps_epi32(x); }
    static Ints and_si(Ints a, Ints b) { return _mm256_and_si256(a, b); }
    static Ints or_si(Ints a, Ints b) { return _mm256_or_si256(a, b); }
    static Ints add_epi32(Ints a, Ints b) { return _mm256_add_epi32(a, b); }
    template <int kBits>
    static Ints srli_epi32(Ints a) { return _mm256_srli_epi32(a, kBits); }
    template <int kBits>
    static Ints slli_epi32(Ints a) { return _mm256_slli_epi32(a, kBits); }

    static Mask cmpgt_epi32(Ints a, Ints b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b)); }
    static Mask cmplt_ps(Vec a, Vec b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
    static Mask cmpunord_ps(Vec a, Vec b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
    // Lanes where `m` is set take b, the others a.
    static Vec blend(Mask m, Vec a, Vec b) { return _mm256_blendv_ps(a, b, m); }

    // Lanes [0, n) (n <= 8), for the tails of arrays; a masked load reads 0 in the other lanes.
    static Tail first_lanes(size_t n) {
        return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
    static Vec maskload_ps(const float* p, Tail m) { return _mm256_maskload_ps(p, m); }
    static void maskstore_ps(float* p, Tail m, Vec v) { _mm256_maskstore_ps(p, m, v); }
};

#include "cpu/simd/lane_math.inc"

}  // namespace swinup::cpu::avx2

SWINUP_TARGET_AVX2_END
#endif  // SWINUP_SIMD_X86
