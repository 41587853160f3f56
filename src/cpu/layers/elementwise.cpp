#include "cpu/layers/elementwise.h"

// GCC 12 reports false "may be used uninitialized" warnings inside its own AVX-512 intrinsic
// headers (_mm512_undefined_ps); the warning is about the header, not this code. (clang has no
// such warning and would warn about the unknown name.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "numeric/e4m3.h"
#include "numeric/exact_math.h"
#include "numeric/half.h"
#include "cpu/layers/simd_avx512.h"

namespace swinup::cpu {

#if defined(__AVX512F__)

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

}  // namespace

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

void gelu_to_e4m3(float* x, size_t n) {
    map_in_place(x, n, [](__m512 v) { return simd::round_e4m3(simd::gelu(v)); });
}

void relu_to_e4m3(float* x, size_t n) {
    map_in_place(x, n, [](__m512 v) {
        // max_ps(v, 0) returns 0 for NaN (its second operand), as the scalar `v > 0 ? v : 0`.
        return simd::round_e4m3(_mm512_max_ps(v, _mm512_setzero_ps()));
    });
}

#else  // scalar definitions

void round_array_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(x[i]);
}

void round_array_to_f16(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_f16(x[i]);
}

void add_round_f16(const float* a, const float* b, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = swinup::round_to_f16(a[i] + b[i]);
}

void gelu_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(exact::gelu(x[i]));
}

void relu_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(x[i] > 0.0f ? x[i] : 0.0f);
}

#endif

}  // namespace swinup::cpu
