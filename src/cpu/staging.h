// Staging of a whole frame on the CPU: the 16 slots of every pixel of the padded render grid
// (docs/model-spec.md, "Staging"), per pixel by frame/stage_pixel.h.
#pragma once

#include "frame/stage_pixel.h"

namespace swinup::cpu {

struct StagingOutput {
    float* dilated = nullptr;  // width * height * 2: dilated motion (the output pass reads it)
    float* tc = nullptr;       // width * height * 3: t(colour) in f32
    float* staged = nullptr;   // padded_width * padded_height * 16
    int padded_width = 0, padded_height = 0;
    // When the frame has a mask: its staged pairs (width * height * 2, read_input_planes) in, and
    // padded_width * padded_height * 2 of them rounded as the network reads them out
    // (mask_network_value, padding clamp-to-edge like the slots). Both null without a mask.
    const float* masks = nullptr;
    float* staged_masks = nullptr;
};

// Stages every real pixel, then fills the padding clamp-to-edge: padded pixel (x, y) carries the
// slots of real pixel (min(x, w-1), min(y, h-1)). Multithreaded over rows; deterministic.
void stage_frame(const StageCurrent& current, const StagePrevious& previous, const StagingOutput& out);

}  // namespace swinup::cpu
