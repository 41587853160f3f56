// The recurrent features a frame keeps for the next one (docs/model-spec.md, "Output pass"): tanh
// of the network's head outputs 0..3 per render pixel, stored as f16, which staging samples into
// slots 12-15 of the next frame (stage_pixel.h). One definition for the CPU backend
// (cpu/output_pass.cpp) and the CUDA one (cuda/frame/post_network.cu), in both precision modes.
#pragma once

#include <cstdint>

#include "numeric/exact_math.h"
#include "numeric/half.h"
#include "numeric/host_device.h"

namespace swinup {

constexpr int kRecurrentFeatures = 4;  // head outputs 0..3

// The stored features of a render pixel's head outputs 0..3: f16 of tanh (the exact formula), a
// NaN output as 0, so that no NaN reaches the next frame.
SWINUP_HD void recurrent_features(const float head[kRecurrentFeatures], uint16_t features[kRecurrentFeatures]) {
    for (int k = 0; k < kRecurrentFeatures; ++k)
        features[k] = f32_to_f16_bits(head[k] == head[k] ? exact::tanh(head[k]) : 0.0f);
}

}  // namespace swinup
