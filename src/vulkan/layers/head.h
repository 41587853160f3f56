// Records the head (docs/model-spec.md; src/cpu/layers/head.cpp): RMSNorm -> e4m3 -> linear
// C -> 16, raw f32 outputs per pixel, and with the head MLP: [normed, staged slots] (48 e4m3) ->
// fc1 -> ReLU -> e4m3 -> fc2 -> ReLU -> e4m3 -> fc3, added to outputs 0-7 (one f32 add each).
#pragma once

#include "vulkan/layers/device_weights.h"
#include "vulkan/layers/layer_recorder.h"
#include "vulkan/layers/layer_scratch.h"

namespace swinup::vulkan {

struct DeviceHead {
    DeviceNormLinear head;  // gain C, linear C -> 16
    bool has_mlp = false;
    DeviceLinear fc1, fc2, fc3;  // 48 -> 64 -> 64 -> 8
};

// x: `pixels` f16 rows of C; staged: the same pixels' 16 e4m3 slots; out: pixels x 16 f32.
// Ends with a barrier.
void record_head(LayerRecorder& recorder, const DeviceHead& head, BufferView x, BufferView staged, int pixels,
                 BufferView out, const LayerScratch& scratch, bool exact);

}  // namespace swinup::vulkan
