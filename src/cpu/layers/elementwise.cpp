#include "cpu/layers/elementwise.h"

// GCC 12 reports false "(may be) used uninitialized" warnings inside its own AVX-512 intrinsic
// headers (_mm512_undefined_ps); the warning is about the header, not this code. (clang has no
// such warnings and would warn about the unknown names.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "numeric/e4m3.h"
#include "numeric/exact_math.h"
#include "numeric/half.h"
#include "cpu/simd/avx2_math.h"
#include "cpu/simd/avx512_math.h"
#include "cpu/simd/simd_level.h"
#include "cpu/simd/simd_target.h"

namespace swinup::cpu {

namespace scalar {
namespace {

// The definitions, element by element.
inline void round_array_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(x[i]);
}

inline void round_array_to_f16(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_f16(x[i]);
}

inline void add_round_f16(const float* a, const float* b, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = swinup::round_to_f16(a[i] + b[i]);
}

inline void gelu_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(exact::gelu(x[i]));
}

inline void relu_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(x[i] > 0.0f ? x[i] : 0.0f);
}

}  // namespace
}  // namespace scalar

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX512_BEGIN
namespace avx512 {
namespace {

// Applies op to x[0, n) in place, 16 lanes at a time (masked tail).
template <class Op>
void map_in_place(float* x, size_t n, const Op& op) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, op(_mm512_loadu_ps(x + i)));
    if (i < n) {
        const __mmask16 m = simd::first_lanes(n - i);
        _mm512_mask_storeu_ps(x + i, m, op(_mm512_maskz_loadu_ps(m, x + i)));
    }
}

void round_array_to_e4m3(float* x, size_t n) { map_in_place(x, n, simd::round_e4m3); }

void round_array_to_f16(float* x, size_t n) { map_in_place(x, n, simd::round_f16); }

void add_round_f16(const float* a, const float* b, float* out, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 s = _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
        _mm512_storeu_ps(out + i, simd::round_f16(s));
    }
    if (i < n) {
        const __mmask16 m = simd::first_lanes(n - i);
        const __m512 s = _mm512_add_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
        _mm512_mask_storeu_ps(out + i, m, simd::round_f16(s));
    }
}

__m512 gelu_e4m3(__m512 v) { return simd::round_e4m3(simd::gelu(v)); }

// max_ps(v, 0) returns 0 for NaN (its second operand), as the scalar `v > 0 ? v : 0`.
__m512 relu_e4m3(__m512 v) { return simd::round_e4m3(_mm512_max_ps(v, _mm512_setzero_ps())); }

void gelu_to_e4m3(float* x, size_t n) { map_in_place(x, n, gelu_e4m3); }

void relu_to_e4m3(float* x, size_t n) { map_in_place(x, n, relu_e4m3); }

}  // namespace
}  // namespace avx512
SWINUP_TARGET_AVX512_END

SWINUP_TARGET_AVX2_BEGIN
namespace avx2 {
namespace {

// Applies op to x[0, n) in place, 8 lanes at a time (masked tail).
template <class Op>
void map_in_place(float* x, size_t n, const Op& op) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, op(_mm256_loadu_ps(x + i)));
    if (i < n) {
        const __m256i m = simd2::first_lanes(n - i);
        _mm256_maskstore_ps(x + i, m, op(_mm256_maskload_ps(x + i, m)));
    }
}

void round_array_to_e4m3(float* x, size_t n) { map_in_place(x, n, simd2::round_e4m3); }

void round_array_to_f16(float* x, size_t n) { map_in_place(x, n, simd2::round_f16); }

void add_round_f16(const float* a, const float* b, float* out, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 s = _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
        _mm256_storeu_ps(out + i, simd2::round_f16(s));
    }
    if (i < n) {
        const __m256i m = simd2::first_lanes(n - i);
        const __m256 s = _mm256_add_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m));
        _mm256_maskstore_ps(out + i, m, simd2::round_f16(s));
    }
}

__m256 gelu_e4m3(__m256 v) { return simd2::round_e4m3(simd2::gelu(v)); }

// max_ps(v, 0) returns 0 for NaN (its second operand), as the scalar `v > 0 ? v : 0`.
__m256 relu_e4m3(__m256 v) { return simd2::round_e4m3(_mm256_max_ps(v, _mm256_setzero_ps())); }

void gelu_to_e4m3(float* x, size_t n) { map_in_place(x, n, gelu_e4m3); }

void relu_to_e4m3(float* x, size_t n) { map_in_place(x, n, relu_e4m3); }

}  // namespace
}  // namespace avx2
SWINUP_TARGET_AVX2_END
#endif  // SWINUP_SIMD_X86

void round_array_to_e4m3(float* x, size_t n) { SWINUP_SIMD_DISPATCH(round_array_to_e4m3, x, n); }

void round_array_to_f16(float* x, size_t n) { SWINUP_SIMD_DISPATCH(round_array_to_f16, x, n); }

void add_round_f16(const float* a, const float* b, float* out, size_t n) {
    SWINUP_SIMD_DISPATCH(add_round_f16, a, b, out, n);
}

void gelu_to_e4m3(float* x, size_t n) { SWINUP_SIMD_DISPATCH(gelu_to_e4m3, x, n); }

void relu_to_e4m3(float* x, size_t n) { SWINUP_SIMD_DISPATCH(relu_to_e4m3, x, n); }

}  // namespace swinup::cpu
