// Records a copy of packed rows into another row layout (shaders/layers/gather_rows.comp): lite's
// embed input (the 2x2 pixels' slots in quadrant order) and the head MLP's input (the slots after
// the head norm's values).
#pragma once

#include "vulkan/layers/layer_recorder.h"

namespace swinup::vulkan {

struct GatherRowsCall {
    BufferView in, out;
    int rows = 0;               // output rows
    int words = 0;              // uints per row copied
    int in_stride_words = 0;
    int out_stride_words = 0;
    int out_offset_words = 0;
    bool gather_quadrants = false;  // output row 4 t + q <- quadrant q of coarse token t
    int coarse_w = 0;
};

void record_gather_rows(LayerRecorder& recorder, const GatherRowsCall& call);

}  // namespace swinup::vulkan
