// Records patch expand (1 token -> 2x2, docs/model-spec.md; src/cpu/layers/patch_expand.cpp):
// RMSNorm -> e4m3 -> linear C -> 4C' -> depth-to-space, plus the skip at the fine grid (f16, or
// f32 for lite's expand0 + skip0), rounded to f16 once.
#pragma once

#include "vulkan/layers/device_weights.h"
#include "vulkan/layers/layer_recorder.h"
#include "vulkan/layers/layer_scratch.h"

namespace swinup::vulkan {

// coarse: w x h f16 tokens of C; skip and fine: 2w x 2h tokens of C'. Ends with a barrier.
void record_patch_expand(LayerRecorder& recorder, const DeviceNormLinear& expand, BufferView coarse, int w, int h,
                         BufferView skip, bool skip_f32, BufferView fine, const LayerScratch& scratch, bool exact);

}  // namespace swinup::vulkan
