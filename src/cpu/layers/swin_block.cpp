#include "cpu/layers/swin_block.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "model/window_map.h"
#include "cpu/layers/elementwise.h"
#include "cpu/layers/parallel.h"
#include "cpu/layers/rms_norm.h"
#include "cpu/layers/weights_access.h"
#include "cpu/layers/window_attention.h"

namespace swinup::cpu {

SwinBlock SwinBlock::from_weights(const Weights& weights, const BlockSpec& spec) {
    SwinBlock b;
    const int c = spec.channels;
    const std::string& n = spec.name;
    if (spec.heads <= 0 || c % spec.heads != 0 || c / spec.heads > kMaxHeadDim) {
        throw std::invalid_argument("block " + n + ": " + std::to_string(c) + " channels cannot be split into " +
                                    std::to_string(spec.heads) + " heads of at most " +
                                    std::to_string(kMaxHeadDim) + " channels");
    }
    b.channels = c;
    b.heads = spec.heads;
    b.norm1_gain = f32_vector(tensor_checked(weights, n + ".norm1.gain", DType::f32, {c}));
    b.qkv = Linear::from_weights(weights, n + ".qkv", c, 3 * c);
    b.rel_bias = f16_vector(tensor_checked(weights, n + ".rel_bias", DType::f16,
                                           {spec.heads, kWindowTokens, kWindowTokens}));
    b.proj = Linear::from_weights(weights, n + ".proj", c, c);
    b.norm2_gain = f32_vector(tensor_checked(weights, n + ".norm2.gain", DType::f32, {c}));
    b.fc1 = Linear::from_weights(weights, n + ".fc1", c, 4 * c);
    b.fc2 = Linear::from_weights(weights, n + ".fc2", 4 * c, c);
    return b;
}

namespace {
struct ScratchTokens {};
struct ScratchNormed {};
struct ScratchWide {};
struct ScratchNarrow {};
struct ScratchIndex {};
}  // namespace

void swin_block_windows(const SwinBlock& block, float* x, int w, int h, bool shifted,
                        int first_window, int count) {
    const int c = block.channels;
    const int tokens = count * kWindowTokens;
    float* xs = thread_scratch<ScratchTokens>(size_t(tokens) * c);       // the windows' tokens
    float* normed = thread_scratch<ScratchNormed>(size_t(tokens) * c);   // e4m3 GEMM inputs
    float* wide = thread_scratch<ScratchWide>(size_t(tokens) * 4 * c);   // qkv (3C), fc1 (4C)
    float* narrow = thread_scratch<ScratchNarrow>(size_t(tokens) * c);   // proj, fc2 outputs
    static_assert(sizeof(float) == sizeof(int32_t));
    int32_t* index = reinterpret_cast<int32_t*>(thread_scratch<ScratchIndex>(size_t(tokens)));

    // Gather: window order, tokens row-major inside each window (the roll happens here).
    for (int wi = 0; wi < count; ++wi) {
        for (int t = 0; t < kWindowTokens; ++t) {
            const int i = wi * kWindowTokens + t;
            index[i] = window_token_index(first_window + wi, t, w, h, shifted);
            std::memcpy(xs + size_t(i) * c, x + size_t(index[i]) * c, sizeof(float) * c);
        }
    }

    // Attention half.
    rms_norm_e4m3(xs, tokens, c, block.norm1_gain.data(), normed);
    linear(block.qkv, normed, tokens, wide);
    round_array_to_f16(wide, size_t(tokens) * 3 * c);
    for (int wi = 0; wi < count; ++wi) {
        const int window = first_window + wi;
        uint32_t mask[kWindowTokens];
        const bool masked = window_has_mask(window, w, h, shifted);
        if (masked) {
            for (int q = 0; q < kWindowTokens; ++q) mask[q] = window_key_mask(window, q, w, h, shifted);
        }
        window_attention(wide + size_t(wi) * kWindowTokens * 3 * c, c, block.heads,
                         block.rel_bias.data(), masked ? mask : nullptr,
                         normed + size_t(wi) * kWindowTokens * c);
    }
    linear(block.proj, normed, tokens, narrow);
    add_round_f16(xs, narrow, size_t(tokens) * c);

    // MLP half.
    rms_norm_e4m3(xs, tokens, c, block.norm2_gain.data(), normed);
    linear(block.fc1, normed, tokens, wide);
    gelu_to_e4m3(wide, size_t(tokens) * 4 * c);
    linear(block.fc2, wide, tokens, narrow);
    add_round_f16(xs, narrow, size_t(tokens) * c);

    // Scatter back (the roll back).
    for (int i = 0; i < tokens; ++i) std::memcpy(x + size_t(index[i]) * c, xs + size_t(i) * c, sizeof(float) * c);
}

void swin_block(const SwinBlock& block, float* x, int w, int h, bool shifted) {
    for_each_block(window_count(w, h), kWindowsPerTask, [&](int begin, int end) {
        swin_block_windows(block, x, w, h, shifted, begin, end - begin);
    });
}

}  // namespace swinup::cpu
