// Records patch merge (2x2 tokens -> 1, docs/model-spec.md; src/cpu/layers/patch_merge.cpp): the
// quadrants' 4C concatenation -> RMSNorm -> e4m3 -> linear 4C -> C' -> f16.
#pragma once

#include "vulkan/layers/device_weights.h"
#include "vulkan/layers/layer_recorder.h"
#include "vulkan/layers/layer_scratch.h"

namespace swinup::vulkan {

// fine: w x h f16 tokens of C channels; coarse: (w/2) x (h/2) f16 tokens of C'. Ends with a barrier.
void record_patch_merge(LayerRecorder& recorder, const DeviceNormLinear& merge, BufferView fine, int w, int h,
                        BufferView coarse, const LayerScratch& scratch, bool exact);

}  // namespace swinup::vulkan
