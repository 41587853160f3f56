#include "cpu/layers/window_attention.h"

#include <cassert>

#include "core/exact_math.h"
#include "core/half.h"
#include "core/model_spec.h"
#include "cpu/layers/elementwise.h"

namespace swinup::cpu {

void window_attention(const float* qkv, int channels, int heads, const float* rel_bias,
                      const uint32_t* key_mask, float* out) {
    constexpr int T = kWindowTokens;
    const int d = channels / heads;
    assert(d <= kMaxHeadDim && d * heads == channels);
    const int stride = 3 * channels;
    const float inv_sqrt_d = exact::div(1.0f, exact::sqrt(static_cast<float>(d)));

    for (int h = 0; h < heads; ++h) {
        // K transposed (channel-major) so that one query's 16 scores are one vector update per
        // channel; each score still sums its channels in order.
        float kt[kMaxHeadDim][T];
        for (int j = 0; j < T; ++j) {
            const float* k = qkv + size_t(j) * stride + channels + h * d;
            for (int c = 0; c < d; ++c) kt[c][j] = k[c];
        }
        const float* bias_h = rel_bias + size_t(h) * T * T;
        for (int i = 0; i < T; ++i) {
            const float* q = qkv + size_t(i) * stride + h * d;
            float s[T] = {};
            for (int c = 0; c < d; ++c) {
                const float qc = q[c];
                for (int j = 0; j < T; ++j) s[j] = s[j] + qc * kt[c][j];
            }
            const uint32_t mask = key_mask ? key_mask[i] : 0xffffu;
            float m = -3.0e38f;
            for (int j = 0; j < T; ++j) {
                s[j] = s[j] * inv_sqrt_d + bias_h[i * T + j];
                if ((mask >> j & 1u) && s[j] > m) m = s[j];
            }
            float p[T];
            float l = 0.0f;
            for (int j = 0; j < T; ++j) {
                p[j] = (mask >> j & 1u) ? swinup::round_to_f16(exact::exp2((s[j] - m) * exact::kLog2e)) : 0.0f;
                l = l + p[j];
            }
            float o[kMaxHeadDim] = {};
            for (int j = 0; j < T; ++j) {
                if (!(mask >> j & 1u)) continue;  // masked keys are excluded, not weighted by 0
                const float* v = qkv + size_t(j) * stride + 2 * channels + h * d;
                const float pj = p[j];
                for (int c = 0; c < d; ++c) o[c] = o[c] + pj * v[c];
            }
            float* dst = out + size_t(i) * channels + h * d;
            for (int c = 0; c < d; ++c) dst[c] = o[c] / l;
        }
    }
    round_array_to_e4m3(out, size_t(T) * channels);
}

}  // namespace swinup::cpu
