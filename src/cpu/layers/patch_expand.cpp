#include "cpu/layers/patch_expand.h"

#include "model/window_map.h"
#include "cpu/layers/elementwise.h"
#include "cpu/layers/parallel.h"
#include "cpu/layers/rms_norm.h"
#include "cpu/layers/weights_access.h"

namespace swinup::cpu {

PatchExpand PatchExpand::from_weights(const Weights& weights, const std::string& name,
                                      int in_channels, int out_channels) {
    PatchExpand e;
    e.in_channels = in_channels;
    e.out_channels = out_channels;
    e.gain = f32_vector(tensor_checked(weights, name + ".norm.gain", DType::f32, {in_channels}));
    e.linear = Linear::from_weights(weights, name + ".linear", in_channels, 4 * out_channels);
    return e;
}

namespace {
struct ScratchExpandNormed {};
struct ScratchExpandOut {};
}  // namespace

void patch_expand_tokens(const PatchExpand& expand, const float* x, int first, int count, float* y) {
    const int c = expand.in_channels;
    float* normed = thread_scratch<ScratchExpandNormed>(size_t(count) * c);
    rms_norm_e4m3(x + size_t(first) * c, count, c, expand.gain.data(), normed);
    linear(expand.linear, normed, count, y);
}

void patch_expand(const PatchExpand& expand, const float* x, int w, int h, const float* skip,
                  float* y) {
    constexpr int kTokensPerTask = 256;
    const int c_out = expand.out_channels;
    const int fine_w = 2 * w;
    for_each_block(w * h, kTokensPerTask, [&](int begin, int end) {
        const int count = end - begin;
        float* out = thread_scratch<ScratchExpandOut>(size_t(count) * 4 * c_out);
        patch_expand_tokens(expand, x, begin, count, out);
        for (int i = 0; i < count; ++i) {
            const int t = begin + i;
            for (int q = 0; q < 4; ++q) {
                const TokenCoord f = quadrant_fine_token(t % w, t / w, q);
                const size_t fine = (size_t(f.y) * fine_w + f.x) * c_out;
                const float* src = out + (size_t(i) * 4 + q) * c_out;
                add_round_f16(src, skip + fine, y + fine, size_t(c_out));
            }
        }
    });
}

}  // namespace swinup::cpu
