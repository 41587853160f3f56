#include "cpu/layers/window_attention.h"

// GCC 12 reports false "(may be) used uninitialized" warnings inside its own AVX-512 intrinsic
// headers (_mm512_undefined_ps); the warning is about the header, not this code. (clang has no
// such warnings and would warn about the unknown names.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <cassert>

#include "numeric/exact_math.h"
#include "numeric/half.h"
#include "model/model_spec.h"
#include "cpu/layers/elementwise.h"
#include "cpu/simd/avx512_math.h"
#include "cpu/simd/simd_level.h"
#include "cpu/simd/simd_target.h"

namespace swinup::cpu {

namespace {

// What every path shares: 1/sqrt(d) and K transposed (channel-major), so that lane j of row c
// is key j's channel c and a query's 16 scores are one vector update per channel (each score
// still sums its channels in order).
struct HeadInputs {
    alignas(64) float kt[kMaxHeadDim][kWindowTokens];
    const float* q0;      // query 0's q of this head
    const float* v0;      // key 0's v of this head
    const float* bias_h;  // this head's 16 x 16 bias table
};

void load_head(const float* qkv, int channels, int d, int h, const float* rel_bias, HeadInputs& in) {
    constexpr int T = kWindowTokens;
    const int stride = 3 * channels;
    for (int j = 0; j < T; ++j) {
        const float* k = qkv + size_t(j) * stride + channels + h * d;
        for (int c = 0; c < d; ++c) in.kt[c][j] = k[c];
    }
    in.q0 = qkv + h * d;
    in.v0 = qkv + 2 * channels + h * d;
    in.bias_h = rel_bias + size_t(h) * T * T;
}

// One head, scalar: the specification's operation sequence written out.
void head_scalar(const HeadInputs& in, int stride, int d, float inv_sqrt_d, const uint32_t* key_mask,
                 float* out, int channels, int h) {
    constexpr int T = kWindowTokens;
    for (int i = 0; i < T; ++i) {
        const uint32_t mask = key_mask ? key_mask[i] : 0xffffu;
        float p[T];
        const float* q = in.q0 + size_t(i) * stride;
        float s[T] = {};
        for (int c = 0; c < d; ++c) {
            const float qc = q[c];
            for (int j = 0; j < T; ++j) s[j] = s[j] + qc * in.kt[c][j];
        }
        float m = -3.0e38f;
        for (int j = 0; j < T; ++j) {
            s[j] = s[j] * inv_sqrt_d + in.bias_h[i * T + j];
            if ((mask >> j & 1u) && s[j] > m) m = s[j];
        }
        for (int j = 0; j < T; ++j) {
            p[j] = (mask >> j & 1u) ? swinup::round_to_f16(exact::exp2((s[j] - m) * exact::kLog2e)) : 0.0f;
        }
        float l = 0.0f;
        for (int j = 0; j < T; ++j) l = l + p[j];  // j in order
        float* dst = out + size_t(i) * channels + h * d;
        float o[kMaxHeadDim] = {};
        for (int j = 0; j < T; ++j) {
            if (!(mask >> j & 1u)) continue;  // masked keys are excluded, not weighted by 0
            const float* v = in.v0 + size_t(j) * stride;
            const float pj = p[j];
            for (int c = 0; c < d; ++c) o[c] = o[c] + pj * v[c];
        }
        for (int c = 0; c < d; ++c) dst[c] = o[c] / l;
    }
}

}  // namespace

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX512_BEGIN
namespace avx512 {
namespace {

// dst[c] = (sum_j p[j] v_j[c]) / l for c < d <= 16 * kVectors, the sum in key order over the
// allowed keys, held in registers (kVectors is a template argument so that the accumulators are).
// p[j] v_j[c] is an exact f16 x f16 product, so the fused multiply-add rounds like the add.
template <int kVectors>
void weighted_values(const float* p, uint32_t mask, const float* v0, int stride, int d, float l,
                     float* dst) {
    __m512 acc[kVectors];
    __mmask16 lanes[kVectors];
    for (int u = 0; u < kVectors; ++u) {
        acc[u] = _mm512_setzero_ps();
        lanes[u] = simd::first_lanes(size_t(d > 16 * u ? d - 16 * u : 0));
    }
    for (int j = 0; j < kWindowTokens; ++j) {
        if (!(mask >> j & 1u)) continue;  // masked keys are excluded, not weighted by 0
        const __m512 pj = _mm512_set1_ps(p[j]);
        const float* v = v0 + size_t(j) * stride;
        for (int u = 0; u < kVectors; ++u)
            acc[u] = _mm512_fmadd_ps(pj, _mm512_maskz_loadu_ps(lanes[u], v + 16 * u), acc[u]);
    }
    const __m512 lv = _mm512_set1_ps(l);
    for (int u = 0; u < kVectors; ++u) _mm512_mask_storeu_ps(dst + 16 * u, lanes[u], _mm512_div_ps(acc[u], lv));
}

// One head, 16 lanes: the scalar path's operations, lane j = key j.
void head(const HeadInputs& in, int stride, int d, float inv_sqrt_d, const uint32_t* key_mask,
          float* out, int channels, int h) {
    constexpr int T = kWindowTokens;
    // All 16 queries' scores at once: 16 independent accumulation chains (one per query)
    // instead of one chain at a time. q_i[c] * k_j[c] is an exact f16 x f16 product, so the
    // fused multiply-add rounds exactly like the specified add.
    __m512 scores[T];
    for (int i = 0; i < T; ++i) scores[i] = _mm512_setzero_ps();
    for (int c = 0; c < d; ++c) {
        const __m512 kc = _mm512_load_ps(in.kt[c]);
        for (int i = 0; i < T; ++i)
            scores[i] = _mm512_fmadd_ps(_mm512_set1_ps(in.q0[size_t(i) * stride + c]), kc, scores[i]);
    }
    for (int i = 0; i < T; ++i) {
        const uint32_t mask = key_mask ? key_mask[i] : 0xffffu;
        alignas(64) float p[T];
        const __m512 s = _mm512_add_ps(_mm512_mul_ps(scores[i], _mm512_set1_ps(inv_sqrt_d)),
                                       _mm512_loadu_ps(in.bias_h + i * T));
        const __mmask16 allowed = __mmask16(mask);
        const float m = _mm512_mask_reduce_max_ps(allowed, s);
        const __m512 e = simd::exp2(_mm512_mul_ps(_mm512_sub_ps(s, _mm512_set1_ps(m)),
                                                  _mm512_set1_ps(exact::kLog2e)));
        _mm512_store_ps(p, _mm512_maskz_mov_ps(allowed, simd::round_f16(e)));
        float l = 0.0f;
        for (int j = 0; j < T; ++j) l = l + p[j];  // j in order
        float* dst = out + size_t(i) * channels + h * d;
        switch ((d + 15) / 16) {
            case 1: weighted_values<1>(p, mask, in.v0, stride, d, l, dst); break;
            case 2: weighted_values<2>(p, mask, in.v0, stride, d, l, dst); break;
            case 3: weighted_values<3>(p, mask, in.v0, stride, d, l, dst); break;
            default: weighted_values<4>(p, mask, in.v0, stride, d, l, dst); break;
        }
    }
}

}  // namespace
}  // namespace avx512
SWINUP_TARGET_AVX512_END

SWINUP_TARGET_AVX2_BEGIN
namespace avx2 {
namespace {
// The scalar head compiled for AVX2, FMA and F16C (exact::exp2's fma one instruction): the same
// operations, so the same bits.
__attribute__((flatten)) void head(const HeadInputs& in, int stride, int d, float inv_sqrt_d,
                                   const uint32_t* key_mask, float* out, int channels, int h) {
    head_scalar(in, stride, d, inv_sqrt_d, key_mask, out, channels, h);
}
}  // namespace
}  // namespace avx2
SWINUP_TARGET_AVX2_END
#endif  // SWINUP_SIMD_X86

namespace scalar {
namespace {
void head(const HeadInputs& in, int stride, int d, float inv_sqrt_d, const uint32_t* key_mask,
          float* out, int channels, int h) {
    head_scalar(in, stride, d, inv_sqrt_d, key_mask, out, channels, h);
}
}  // namespace
}  // namespace scalar

namespace {
void head(const HeadInputs& in, int stride, int d, float inv_sqrt_d, const uint32_t* key_mask,
          float* out, int channels, int h) {
    SWINUP_SIMD_DISPATCH(head, in, stride, d, inv_sqrt_d, key_mask, out, channels, h);
}
}  // namespace

void window_attention(const float* qkv, int channels, int heads, const float* rel_bias,
                      const uint32_t* key_mask, float* out) {
    const int d = channels / heads;
    assert(d <= kMaxHeadDim && d * heads == channels);
    const int stride = 3 * channels;
    const float inv_sqrt_d = exact::div(1.0f, exact::sqrt(static_cast<float>(d)));
    HeadInputs in;
    for (int h = 0; h < heads; ++h) {
        load_head(qkv, channels, d, h, rel_bias, in);
        head(in, stride, d, inv_sqrt_d, key_mask, out, channels, h);
    }
    round_array_to_e4m3(out, size_t(kWindowTokens) * channels);
}

}  // namespace swinup::cpu
