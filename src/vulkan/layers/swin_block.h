// Records the Swin block of docs/model-spec.md on a grid of f16 tokens, in place
// (src/cpu/layers/swin_block.cpp):
//   x = f16(x + proj(attention(e4m3(norm1(x)))))
//   x = f16(x + fc2(e4m3(gelu(fc1(e4m3(norm2(x)))))))
// The per-token steps run on the grid in its own order (each row's bits do not depend on the row
// order); only the attention reads and writes through the window map.
#pragma once

#include "vulkan/layers/device_weights.h"
#include "vulkan/layers/layer_recorder.h"
#include "vulkan/layers/layer_scratch.h"

namespace swinup::vulkan {

// Ends with a barrier: x is ready for the next layer.
void record_swin_block(LayerRecorder& recorder, const DeviceBlock& block, BufferView x, int w, int h, bool shifted,
                       const LayerScratch& scratch, bool exact);

}  // namespace swinup::vulkan
