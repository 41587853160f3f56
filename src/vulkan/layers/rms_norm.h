// Records RMSNorm -> e4m3 (shaders/layers/rms_norm_e4m3.comp) over f16 token rows, or over the
// 4C concatenation of each coarse token's quadrants (patch merge).
#pragma once

#include "vulkan/layers/layer_recorder.h"

namespace swinup::vulkan {

struct RmsNormCall {
    BufferView x;              // f16 tokens of `channels` values
    BufferView gain;           // channels (4 channels when gathering) f32
    BufferView out;            // e4m3 rows
    int rows = 0;              // output rows (coarse tokens when gathering)
    int channels = 0;          // C of one input token
    bool gather_quadrants = false;
    int coarse_w = 0;          // gathering: the coarse grid's width
    int out_stride_words = 0;  // uints per output row
};

void record_rms_norm(LayerRecorder& recorder, const RmsNormCall& call, bool exact);

}  // namespace swinup::vulkan
