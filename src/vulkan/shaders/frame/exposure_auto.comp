#version 450
#extension GL_GOOGLE_include_directive : require
// Auto exposure, second step (frame/exposure.h auto_exposure_of_sum): the rows' sums added in
// order in f64, the mean, 0.18 / 2^mean clamped to [2^-20, 2^20]; clears the counters of
// replaced values. One invocation. Needs shaderFloat64.
#include "frame_push.glsl"
#include "pixel_ops.glsl"

layout(local_size_x = 1) in;
layout(std430, binding = 0) readonly buffer RowSums { double row_sums[]; };
layout(std430, binding = 1) buffer Scalars { FrameScalars scalars; };

void main() {
    precise double total = 0.0LF;
    for (int y = 0; y < frame.height; ++y) total += row_sums[y];
    precise double pixels = double(frame.width) * double(frame.height);
    precise double mean = total / pixels;
    const float mean_log2 = float(mean);
    scalars.exposure = px_clampf(exact_div(F(0x3e3851ecu) /* 0.18f */, exact_exp2(mean_log2)),
                                 9.5367431640625e-07 /* 2^-20 */, 1048576.0);
    CLEAR_FRAME_COUNTS(scalars);
}
