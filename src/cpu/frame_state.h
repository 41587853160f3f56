// The CPU backend's temporal state (history, recurrent features, previous depth) and the per-frame
// scratch planes, all allocated once at context creation for the largest sizes.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/input_planes.h"
#include "frame/frame_sequence.h"
#include "frame/mask_pixel.h"
#include "frame/output_pixel.h"
#include "frame/recurrent_features.h"
#include "model/model_spec.h"
#include "swinup/swinup.h"

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
    std::vector<float> masks;   // w * h * 2: staged (reactive, transparency), when the frame has a mask
    std::vector<float> staged_masks;   // padded w * h * 2: the same, e4m3 as the network reads them
    std::vector<uint32_t> row_counts;  // per-row replaced-value counts (kRowCounts per row)
    std::vector<double> row_sums;      // per-row sums for auto exposure
    std::vector<float> presharpen;     // display w * h * 3: the output's values before sharpening
};

// Calls visit(vector, count) for every buffer of the state and the planes with the element count
// a context of `desc` allocates for it (its largest sizes). The one place those counts are
// written: CpuBackend allocates with it, and cpu_memory_estimate and CpuBackend::memory() count
// with it (swinup_query_memory). State and Planes: TemporalState and FramePlanes, const or not.
template <typename State, typename Planes, typename Visit>
void for_each_frame_buffer(const swinup_context_desc& desc, State& state, Planes& planes, Visit&& visit) {
    const size_t render = static_cast<size_t>(desc.max_render_width) * desc.max_render_height;
    const size_t padded = static_cast<size_t>(pad_to_grid(static_cast<int>(desc.max_render_width))) *
                          static_cast<size_t>(pad_to_grid(static_cast<int>(desc.max_render_height)));
    const size_t display = static_cast<size_t>(desc.display_width) * desc.display_height;
    for (int i = 0; i < 2; ++i) {
        visit(state.history[i], display * 4);
        visit(state.depth[i], render);
        visit(state.recurrent[i], render * kRecurrentFeatures);
    }
    visit(planes.color, render * 3);
    visit(planes.motion, render * 2);
    visit(planes.dilated, render * 2);
    visit(planes.tc, render * 3);
    visit(planes.staged, padded * kSlots);
    visit(planes.head, padded * kHeadOutputs);
    visit(planes.kernels, render);
    visit(planes.masks, render * kMasks);
    visit(planes.staged_masks, padded * kMasks);
    visit(planes.row_counts, static_cast<size_t>(desc.max_render_height) * kRowCounts);
    visit(planes.row_sums, static_cast<size_t>(desc.max_render_height));
    visit(planes.presharpen, display * 3);
}

// What the last frame's staging replaced (NaN/Inf values, per component).
struct FrameStats {
    uint64_t color_replaced = 0;
    uint64_t depth_replaced = 0;
    uint64_t motion_replaced = 0;
    float exposure = 1.0f;  // the exposure staging used
};

}  // namespace swinup::cpu
