#version 450
#extension GL_GOOGLE_include_directive : require
// The recurrent features kept for the next frame (src/frame/recurrent_features.h): f16 of
// exact tanh of head outputs 0..3 of every real render pixel, NaN as 0. One invocation per pixel.
#include "frame_push.glsl"
#include "pixel_ops.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) readonly buffer Head { float head[]; };
layout(std430, binding = 1) writeonly buffer Recurrent { uint recurrent[]; };

uint feature(float h) { return f32_to_f16_bits(px_is_nan(h) ? 0.0 : exact_tanh(h)); }

void main() {
    const int x = int(gl_GlobalInvocationID.x);
    const int y = int(gl_GlobalInvocationID.y);
    if (x >= frame.width || y >= frame.height) return;
    const int h = (y * frame.padded_width + x) * 16;
    const int r = (y * frame.width + x) * 2;
    recurrent[r] = feature(head[h]) | (feature(head[h + 1]) << 16);
    recurrent[r + 1] = feature(head[h + 2]) | (feature(head[h + 3]) << 16);
}
