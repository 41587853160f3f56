// The network's scratch buffers that the layers share (sized by the network for its largest
// grid): e4m3 GEMM inputs (norm and attention outputs, the head MLP's input and second hidden
// layer), e4m3 wide rows (fc1 / embed0 / the head MLP's first hidden layer), f16 Q, K, V.
#pragma once

#include "vulkan/layers/layer_recorder.h"

namespace swinup::vulkan {

struct LayerScratch {
    BufferView normed;
    BufferView wide;
    BufferView qkv;
};

}  // namespace swinup::vulkan
