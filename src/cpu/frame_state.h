// The CPU backend's temporal state (history, recurrent features, previous depth) and the per-frame
// scratch planes, all allocated once at context creation for the largest sizes.
#pragma once

#include <cstdint>
#include <vector>

#include "frame/frame_sequence.h"
#include "frame/output_pixel.h"

namespace swinup::cpu {

// Double-buffered: slot `frames.current()` holds what the next frame reads; a frame writes into
// the other slot, which the commit (FrameSequence::commit) makes current, so a frame that fails
// leaves the state exactly as it was.
struct TemporalState {
    std::vector<uint16_t> history[2];    // display w * h * 4 f16: the last output (RGB, unused)
    std::vector<float> depth[2];         // render w * h reverse-Z depth of the frame
    std::vector<uint16_t> recurrent[2];  // render w * h * 4 f16: tanh(head outputs 0..3)
    FrameSequence frames;                // which slot is current, the last frame's size and jitter
};

// Scratch planes of one frame (render-resolution planes are packed with this frame's width).
struct FramePlanes {
    std::vector<float> color;   // w * h * 3: exposed, sanitised colour
    std::vector<float> motion;  // w * h * 2: sanitised motion in render pixels (undilated)
    std::vector<float> dilated; // w * h * 2: dilated motion
    std::vector<float> tc;      // w * h * 3: t(colour), the output pass's samples
    std::vector<float> staged;  // padded w * h * 16: the network's input slots
    std::vector<float> head;    // padded w * h * 16: the network's raw outputs
    std::vector<PixelKernel> kernels;  // w * h: output_frame's table of each render pixel's kernel
    std::vector<uint32_t> row_counts;  // per-row replaced-value counts (3 per row)
    std::vector<double> row_sums;      // per-row sums for auto exposure
};

// What the last frame's staging replaced (NaN/Inf values, per component).
struct FrameStats {
    uint64_t color_replaced = 0;
    uint64_t depth_replaced = 0;
    uint64_t motion_replaced = 0;
    float exposure = 1.0f;  // the exposure staging used
};

}  // namespace swinup::cpu
