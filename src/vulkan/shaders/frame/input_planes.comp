#version 450
#extension GL_GOOGLE_include_directive : require
// The frame's inputs read into the sanitised planes staging reads (cpu/input_planes.cpp): colour
// times exposure / pre-exposure (NaN/Inf -> 0, LDR clamp), reverse-Z depth (NaN/Inf -> far),
// motion in render pixels (display-resolution vectors read at the sample's display pixel and
// divided by the scale), each replaced value counted; the masks (frame/mask_pixel.h: clamped to
// [0, 1], NaN/Inf -> 0, counted) into (reactive, transparency) pairs when the frame has one (an
// absent mask reads 0; its image binding is a stand-in, not read). One invocation per render pixel.
#include "frame_push.glsl"
#include "pixel_ops.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform sampler2D color_image;
layout(binding = 1) uniform sampler2D depth_image;
layout(binding = 2) uniform sampler2D motion_image;
layout(std430, binding = 3) writeonly buffer ColorPlane { float color[]; };
layout(std430, binding = 4) writeonly buffer DepthPlane { float z[]; };
layout(std430, binding = 5) writeonly buffer MotionPlane { float motion[]; };
layout(std430, binding = 6) buffer Scalars { FrameScalars scalars; };
layout(binding = 7) uniform sampler2D reactive_image;
layout(binding = 8) uniform sampler2D transparency_image;
layout(std430, binding = 9) writeonly buffer MaskPlane { float masks[]; };

// Mask k's staged value at (x, y), counted in the frame's scalars.
float stage_mask_at(int k, int x, int y) {
    const uint present = k == 0 ? kFlagReactiveMask : kFlagTransparencyMask;
    if ((frame.flags & present) == 0u) return 0.0;
    float raw = k == 0 ? texelFetch(reactive_image, ivec2(x, y), 0).r : texelFetch(transparency_image, ivec2(x, y), 0).r;
    if ((frame.option & (k == 0 ? kOptionReactiveUnorm8 : kOptionTransparencyUnorm8)) != 0u) {
        raw = px_unorm8_mask_value(raw);
    }
    bool nonfinite, out_of_range;
    const float m = px_stage_mask(raw, nonfinite, out_of_range);
    if (nonfinite) atomicAdd(scalars.mask_nonfinite[k], 1u);
    if (out_of_range) atomicAdd(scalars.mask_out_of_range[k], 1u);
    return m;
}

void main() {
    const int x = int(gl_GlobalInvocationID.x);
    const int y = int(gl_GlobalInvocationID.y);
    if (x >= frame.width || y >= frame.height) return;
    const int i = y * frame.width + x;
    const float exposure = scalars.exposure;
    const bool ldr = (frame.flags & kFlagLdr) != 0u;
    const bool srgb = (frame.flags & kFlagSrgb) != 0u;
    const vec4 c = texelFetch(color_image, ivec2(x, y), 0);
    uint color_count = 0u;
    for (int k = 0; k < 3; ++k) {
        bool replaced;
        color[i * 3 + k] = px_stage_color(px_decode_colour(c[k], srgb), exposure, frame.pre_exposure, ldr, replaced);
        color_count += replaced ? 1u : 0u;
    }
    bool depth_replaced;
    z[i] = px_stage_depth(texelFetch(depth_image, ivec2(x, y), 0).r, (frame.flags & kFlagDepthInverted) != 0u,
                          depth_replaced);

    int mv_x = x, mv_y = y;
    float divide_x = 1.0, divide_y = 1.0;
    if ((frame.flags & kFlagMvDisplayRes) != 0u) {
        const float dpx = exact_mul(exact_add(float(x) + 0.5, frame.jitter_x), frame.scale_x);
        const float dpy = exact_mul(exact_add(float(y) + 0.5, frame.jitter_y), frame.scale_y);
        mv_x = px_clampi(px_floor_to_int(dpx), 0, frame.display_width - 1);
        mv_y = px_clampi(px_floor_to_int(dpy), 0, frame.display_height - 1);
        divide_x = frame.scale_x;
        divide_y = frame.scale_y;
    }
    const vec4 m = texelFetch(motion_image, ivec2(mv_x, mv_y), 0);
    bool replaced_x, replaced_y;
    const float mx = px_stage_motion(m.x, frame.mv_scale_x, divide_x, replaced_x);
    const float my = px_stage_motion(m.y, frame.mv_scale_y, divide_y, replaced_y);
    motion[i * 2 + 0] = exact_add(mx, frame.motion_offset_x);
    motion[i * 2 + 1] = exact_add(my, frame.motion_offset_y);
    const uint motion_count = (replaced_x ? 1u : 0u) + (replaced_y ? 1u : 0u);
    // Integer sums are the same whatever order the invocations add in.
    if (color_count != 0u) {
        atomicAdd(scalars.color_replaced, color_count);
        atomicAdd(scalars.color_pixels, 1u);
    }
    if (depth_replaced) atomicAdd(scalars.depth_replaced, 1u);
    if (motion_count != 0u) {
        atomicAdd(scalars.motion_replaced, motion_count);
        atomicAdd(scalars.motion_pixels, 1u);
    }
    if ((frame.flags & (kFlagReactiveMask | kFlagTransparencyMask)) != 0u) {
        masks[i * 2 + 0] = stage_mask_at(0, x, y);
        masks[i * 2 + 1] = stage_mask_at(1, x, y);
    }
}
