#include "cpu/layers/rms_norm.h"

#include <algorithm>

#include "numeric/e4m3.h"
#include "numeric/exact_math.h"
#include "model/model_spec.h"
#include "cpu/layers/elementwise.h"

namespace swinup::cpu {

float rms_norm_factor(const float* x, int channels) {
    float sum = 0.0f;
    for (int c = 0; c < channels; ++c) sum = sum + x[c] * x[c];
    const float mean = exact::div(sum, static_cast<float>(channels));
    return exact::div(1.0f, exact::sqrt(exact::add(mean, kRmsEps)));
}

void rms_norm_e4m3(const float* x, int rows, int channels, const float* gain, float* y) {
    // The sum of squares is one dependent chain per row (the order is fixed); running kBatch rows
    // side by side keeps the adder busy without changing any row's order.
    constexpr int kBatch = 8;
    int r0 = 0;
    for (; r0 + kBatch <= rows; r0 += kBatch) {
        float sum[kBatch] = {};
        const float* xr = x + size_t(r0) * channels;
        for (int c = 0; c < channels; ++c) {
            for (int b = 0; b < kBatch; ++b) {
                const float v = xr[size_t(b) * channels + c];
                sum[b] = sum[b] + v * v;
            }
        }
        for (int b = 0; b < kBatch; ++b) {
            const float mean = exact::div(sum[b], static_cast<float>(channels));
            const float factor = exact::div(1.0f, exact::sqrt(exact::add(mean, kRmsEps)));
            const float* in = xr + size_t(b) * channels;
            float* out = y + size_t(r0 + b) * channels;
            for (int c = 0; c < channels; ++c) out[c] = (in[c] * factor) * gain[c];
            round_array_to_e4m3(out, size_t(channels));
        }
    }
    for (; r0 < rows; ++r0) {
        const float* in = x + size_t(r0) * channels;
        float* out = y + size_t(r0) * channels;
        const float factor = rms_norm_factor(in, channels);
        for (int c = 0; c < channels; ++c) out[c] = (in[c] * factor) * gain[c];
        round_array_to_e4m3(out, size_t(channels));
    }
}

}  // namespace swinup::cpu
