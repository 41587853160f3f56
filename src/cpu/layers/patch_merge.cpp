#include "cpu/layers/patch_merge.h"

#include <cstring>

#include "model/window_map.h"
#include "cpu/layers/elementwise.h"
#include "cpu/layers/parallel.h"
#include "cpu/layers/rms_norm.h"
#include "cpu/layers/weights_access.h"

namespace swinup::cpu {

PatchMerge PatchMerge::from_weights(const Weights& weights, const std::string& name, int in_channels,
                                    int out_channels) {
    PatchMerge m;
    m.in_channels = in_channels;
    m.out_channels = out_channels;
    m.gain = f32_vector(tensor_checked(weights, name + ".norm.gain", DType::f32, {4 * in_channels}));
    m.linear = Linear::from_weights(weights, name + ".linear", 4 * in_channels, out_channels);
    return m;
}

void gather_quadrants(const float* fine, int fine_w, int channels, int cx, int cy, float* out) {
    for (int q = 0; q < 4; ++q) {
        const TokenCoord f = quadrant_fine_token(cx, cy, q);
        std::memcpy(out + size_t(q) * channels, fine + (size_t(f.y) * fine_w + f.x) * channels,
                    sizeof(float) * channels);
    }
}

namespace {
struct ScratchMergeInput {};
}  // namespace

void patch_merge_tokens(const PatchMerge& merge, const float* x, int w, int h, int first, int count,
                        float* y) {
    (void)h;
    const int k = 4 * merge.in_channels;
    const int coarse_w = w / 2;
    float* in = thread_scratch<ScratchMergeInput>(size_t(count) * k);
    for (int i = 0; i < count; ++i) {
        const int t = first + i;
        gather_quadrants(x, w, merge.in_channels, t % coarse_w, t / coarse_w, in + size_t(i) * k);
    }
    rms_norm_e4m3(in, count, k, merge.gain.data(), in);
    linear(merge.linear, in, count, y);
    round_array_to_f16(y, size_t(count) * merge.out_channels);
}

void patch_merge(const PatchMerge& merge, const float* x, int w, int h, float* y) {
    constexpr int kTokensPerTask = 256;
    for_each_block((w / 2) * (h / 2), kTokensPerTask, [&](int begin, int end) {
        patch_merge_tokens(merge, x, w, h, begin, end - begin, y + size_t(begin) * merge.out_channels);
    });
}

}  // namespace swinup::cpu
