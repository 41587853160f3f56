// Everything that changes from frame to frame, in one struct that lives in device memory: the
// backend writes it with one cudaMemcpyAsync before launching the frame's CUDA Graph, so that the
// graph (captured once per evaluation shape) never needs its kernel parameters updated.
#pragma once

#include <cstddef>
#include <cstdint>

#include "frame/frame_geometry.h"
#include "frame/input_image.h"

namespace swinup::cuda {

struct FrameParams : FrameGeometry {
    // Inputs.
    InputImage color, depth, motion;          // device memory (a host resource's packed copy)
    const float* exposure_texture = nullptr;  // device 1x1 R32F, or null
    unsigned long long exposure_texture_object = 0;  // an imported 1x1 R32F image (cuda/interop), or 0
    float exposure_value = 1.0f;              // used when there is no texture and no auto exposure
    float pre_exposure = 1.0f;
    int auto_exposure = 0;
    float mv_scale_x = 1.0f, mv_scale_y = 1.0f;
    float motion_offset_x = 0.0f, motion_offset_y = 0.0f;  // jitter cancellation (MV_JITTERED)
    int ldr = 1, depth_inverted = 0, mv_display_res = 0;
    int srgb = 0;  // SWINUP_FLAG_SRGB_INPUT: colour decoded to linear (frame/pixel_ops.h decode_colour)
    // The masks (frame/mask_pixel.h; docs/masks.md): device memory read in place, host memory from
    // a packed copy, an imported image through its texture; neither data nor texture (input_given
    // false): absent, 0 at every pixel. Set both with set_masks. has_masks: either is given (staging
    // writes FramePlanes::masks and the output pass reads it). mask_tokens: the rows the network's
    // mask_embed reads (FramePlanes::mask_tokens): 0 none, 1 lite (a level-1 token's 2x2 pixels),
    // 2 full (a pixel).
    InputImage reactive_mask, transparency_mask;
    int has_masks = 0;
    int mask_tokens = 0;
    // Sizes (render, display, jitter, scale: the FrameGeometry base) and the network's grid.
    int padded_width = 0, padded_height = 0;
    float still_history_shift = 0.0f;  // the network's (ModelConfig; output_pixel.h history_weight)
    // Temporal state (double-buffered by the backend).
    int history_valid = 0;
    int prev_width = 0, prev_height = 0;
    const uint16_t* history_in = nullptr;     // display w * h * 4 f16
    uint16_t* history_out = nullptr;
    const float* z_prev = nullptr;            // prev render w * h reverse-Z
    float* z = nullptr;                       // this frame's reverse-Z (becomes z_prev)
    const uint16_t* recurrent_in = nullptr;   // prev render w * h * 4 f16
    uint16_t* recurrent_out = nullptr;
    // Output.
    void* output = nullptr;
    size_t output_pitch = 0;
    unsigned long long output_surface = 0;   // an imported image (cuda/interop) written instead, or 0
    int output_format = 0;                    // swinup_format
    // The input statistics (FramePlanes::counts): the slot of FramePlanes::published_counts the
    // staging kernel copies this frame's counters into, clearing them for the next frame; -1:
    // neither (NetworkFusions::published_counts off: a memset clears them and a copy reads them).
    // Chosen per frame, so it lives here and the captured graphs need no update.
    int count_slot = -1;
};

// The frame's masks and has_masks, for both of the CUDA backend's paths (swinup_dispatch's
// resources, the imported Vulkan images): has_masks is set when either mask is given, by data or
// by texture (input_given), so the frame graph with mask staging runs exactly when a mask is read.
inline void set_masks(FrameParams* p, const InputImage& reactive, const InputImage& transparency) {
    p->reactive_mask = reactive;
    p->transparency_mask = transparency;
    p->has_masks = input_given(reactive) || input_given(transparency) ? 1 : 0;
}

}  // namespace swinup::cuda
