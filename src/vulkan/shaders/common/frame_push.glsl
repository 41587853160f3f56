// The push constants every frame pass takes (src/vulkan/frame/frame_push.h is the C++ twin; the
// two must stay identical in order and size).
#ifndef SWINUP_FRAME_PUSH_GLSL
#define SWINUP_FRAME_PUSH_GLSL

const uint kFlagHistoryValid = 1u;   // the previous frame's state is read
const uint kFlagLdr = 2u;            // colour clamped to [0, 1]
const uint kFlagDepthInverted = 4u;  // depth is already reverse-Z
const uint kFlagMvDisplayRes = 8u;   // motion vectors at display resolution
const uint kFlagReactiveMask = 16u;      // the frame has a reactive mask
const uint kFlagTransparencyMask = 32u;  // the frame has a transparency & composition mask
const uint kFlagSrgb = 64u;              // colour is sRGB-encoded: decoded to linear first
const uint kFlagDebugView = 128u;        // the output shows the debug view (common/debug_view.glsl)
const uint kOptionReactiveUnorm8 = 1u;      // input planes: the reactive image holds UNORM8 codes
const uint kOptionTransparencyUnorm8 = 2u;  // input planes: the transparency image holds UNORM8 codes

layout(push_constant) uniform FramePush {
    int width, height, display_width, display_height;
    float jitter_x, jitter_y, scale_x, scale_y;
    int padded_width, padded_height, prev_width, prev_height;
    uint flags;
    float pre_exposure, mv_scale_x, mv_scale_y;
    float motion_offset_x, motion_offset_y, still_history_shift;
    uint option;           // pass-specific (exposure: 0 value, 1 texture)
    float exposure_value;  // the exposure of a fixed-exposure frame
    float sharpness;  // 0: the output pass writes the image; else sharpen.comp does
    uint pad1, pad2;
} frame;

// The frame's scalars, written by the exposure pass, counted by the input pass (the *_replaced
// counts per component, the rest per pixel; masks in the order reactive, transparency).
struct FrameScalars {
    float exposure;
    uint color_replaced;
    uint depth_replaced;
    uint motion_replaced;
    uint color_pixels;
    uint motion_pixels;
    uint mask_nonfinite[2];
    uint mask_out_of_range[2];
};

// Clears the counters (the exposure passes, before the input planes pass counts).
#define CLEAR_FRAME_COUNTS(s) \
    s.color_replaced = 0u; s.depth_replaced = 0u; s.motion_replaced = 0u; s.color_pixels = 0u; \
    s.motion_pixels = 0u; s.mask_nonfinite[0] = 0u; s.mask_nonfinite[1] = 0u; \
    s.mask_out_of_range[0] = 0u; s.mask_out_of_range[1] = 0u

#endif
