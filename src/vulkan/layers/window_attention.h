// Records window attention (shaders/layers/window_attention.comp): f16 Q, K, V rows of the grid
// in, e4m3 attention rows out at the same grid tokens (the shift is in the kernel's index map).
#pragma once

#include "vulkan/layers/layer_recorder.h"

namespace swinup::vulkan {

struct AttentionCall {
    BufferView qkv;       // w x h rows of 3C f16 (q, k, v)
    BufferView rel_bias;  // heads x 16 x 16 f32
    BufferView out;       // w x h rows of C e4m3
    int width = 0, height = 0, channels = 0, heads = 0;
    bool shifted = false;
};

void record_window_attention(LayerRecorder& recorder, const AttentionCall& call, bool exact);

}  // namespace swinup::vulkan
