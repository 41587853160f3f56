// The Swin block of docs/model-spec.md, on a grid of f16 tokens, in place:
//   x = f16(x + proj(attention(e4m3(norm1(x)))))     attention in 4x4 windows (shifted or not)
//   x = f16(x + fc2(e4m3(gelu(fc1(e4m3(norm2(x)))))))
#pragma once

#include <string>
#include <vector>

#include "model/model_spec.h"
#include "model/weights.h"
#include "cpu/layers/linear.h"

namespace swinup::cpu {

struct SwinBlock {
    int channels = 0;
    int heads = 0;
    std::vector<float> norm1_gain;  // C
    Linear qkv;                     // C -> 3C
    std::vector<float> rel_bias;    // heads x 16 x 16, decoded f16
    Linear proj;                    // C -> C
    std::vector<float> norm2_gain;  // C
    Linear fc1;                     // C -> 4C
    Linear fc2;                     // 4C -> C

    static SwinBlock from_weights(const Weights& weights, const BlockSpec& spec);
    size_t heap_bytes() const {
        return (norm1_gain.capacity() + rel_bias.capacity() + norm2_gain.capacity()) * sizeof(float) +
               qkv.heap_bytes() + proj.heap_bytes() + fc1.heap_bytes() + fc2.heap_bytes();
    }
};

// Windows are processed in groups of this many (a fixed size: the row blocks of every GEMM).
constexpr int kWindowsPerTask = 16;

// Windows [first_window, first_window + count) of the w x h grid x (C channels, f16 values),
// updated in place. Single-threaded; windows are disjoint sets of tokens, so different window
// ranges may run at once.
void swin_block_windows(const SwinBlock& block, float* x, int w, int h, bool shifted,
                        int first_window, int count);

// The whole grid, in parallel over fixed groups of kWindowsPerTask windows.
void swin_block(const SwinBlock& block, float* x, int w, int h, bool shifted);

}  // namespace swinup::cpu
