// The push constants of every frame pass: the C++ twin of shaders/common/frame_push.glsl (same
// order, same size; a static_assert below and the shaders' use keep them together).
#pragma once

#include <cstdint>

namespace swinup::vulkan {

constexpr uint32_t kFlagHistoryValid = 1u;
constexpr uint32_t kFlagLdr = 2u;
constexpr uint32_t kFlagDepthInverted = 4u;
constexpr uint32_t kFlagMvDisplayRes = 8u;
constexpr uint32_t kFlagReactiveMask = 16u;      // the frame has a reactive mask
constexpr uint32_t kFlagTransparencyMask = 32u;  // the frame has a transparency & composition mask
constexpr uint32_t kFlagSrgb = 64u;              // colour is sRGB-encoded (SWINUP_FLAG_SRGB_INPUT)
constexpr uint32_t kFlagDebugView = 128u;        // the output shows the debug view (SWINUP_FLAG_DEBUG_VIEW)
// The input planes pass's `option`: which mask images hold UNORM8 codes (read back to code / 255).
constexpr uint32_t kOptionReactiveUnorm8 = 1u;
constexpr uint32_t kOptionTransparencyUnorm8 = 2u;

struct FramePush {
    int32_t width, height, display_width, display_height;
    float jitter_x, jitter_y, scale_x, scale_y;
    int32_t padded_width, padded_height, prev_width, prev_height;
    uint32_t flags;
    float pre_exposure, mv_scale_x, mv_scale_y;
    float motion_offset_x, motion_offset_y, still_history_shift;
    uint32_t option;
    float exposure_value;
    float sharpness;  // swinup_dispatch_desc.sharpness: 0 off (the output pass writes the image)
    uint32_t pad1, pad2;
};
static_assert(sizeof(FramePush) == 96, "FramePush must match shaders/common/frame_push.glsl");

// The frame's scalars buffer (FrameScalars of frame_push.glsl): the exposure and the frame's counts
// of repaired input values (cleared by the exposure pass, counted by the input planes pass). The
// *_replaced counts are per component (VulkanFrameStats), the rest per pixel (swinup_input_statistics).
struct FrameScalars {
    float exposure;
    uint32_t color_replaced, depth_replaced, motion_replaced;
    uint32_t color_pixels, motion_pixels;
    uint32_t mask_nonfinite[2], mask_out_of_range[2];  // kReactiveMask, kTransparencyMask
};
static_assert(sizeof(FrameScalars) == 40, "FrameScalars must match shaders/common/frame_push.glsl");

}  // namespace swinup::vulkan
