#version 450
#extension GL_GOOGLE_include_directive : require
// Auto exposure, first step: each row's f64 sum of px_auto_exposure_log2_luminance in x order
// (frame/exposure.h; the CPU sums each row the same way). One invocation per row. Needs
// shaderFloat64.
#include "frame_push.glsl"
#include "pixel_ops.glsl"

layout(local_size_x = 64) in;
layout(binding = 0) uniform sampler2D color;
layout(std430, binding = 1) writeonly buffer RowSums { double row_sums[]; };

void main() {
    const int y = int(gl_GlobalInvocationID.x);
    if (y >= frame.height) return;
    precise double sum = 0.0LF;
    for (int x = 0; x < frame.width; ++x) {
        sum += double(px_auto_exposure_log2_luminance(texelFetch(color, ivec2(x, y), 0).rgb, frame.pre_exposure,
                                                       (frame.flags & kFlagSrgb) != 0u));
    }
    row_sums[y] = sum;
}
