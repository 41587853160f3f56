// RMSNorm -> e4m3 (docs/model-spec.md; src/cpu/layers/rms_norm.cpp):
//   y[c] = e4m3((x[c] * (1 / sqrt(mean(x^2) + 2^-13))) * gain[c])
// mean(x^2): the f32 sum of squares in channel order (each square of an f16 value is exact), divided
// by the channel count. Exact mode: IEEE division and sqrt (exact_math.glsl); fast mode: inversesqrt.
// One invocation per row. x: f16 tokens (2 per uint); `gather` 1 reads the four fine tokens of a
// coarse token in quadrant order (patch merge's 4C row), 0 reads one token. y: e4m3 rows (4 per
// uint) with their own stride and offset (the head writes into the head MLP's 48-value rows).
#version 450
#extension GL_GOOGLE_include_directive : require

#include "e4m3.glsl"
#include "half.glsl"
#include "exact_math.glsl"
#include "packed_rows.glsl"
#include "window_map.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer X { uint x_words[]; };
layout(std430, binding = 1) readonly buffer Gain { float gain[]; };
layout(std430, binding = 2) writeonly buffer Y { uint y_words[]; };

layout(push_constant) uniform Params {
    int rows;        // tokens (coarse tokens when gathering)
    int channels;    // C of one input token (a multiple of 4)
    int gather;      // 0: rows, 1: quadrants of a fine grid 2 coarse_w wide
    int coarse_w;
    int out_stride;  // uints per output row
    int out_offset;  // first uint of the output
    int exact;
} p;

const float kRmsEps = 1.0 / 8192.0;

// The first uint of the input token that holds channels [part * C, part * C + C) of row `row`.
uint part_base(int row, int part) {
    int token = row;
    if (p.gather != 0) {
        const ivec2 f = quadrant_fine_token(row % p.coarse_w, row / p.coarse_w, part);
        token = f.y * 2 * p.coarse_w + f.x;
    }
    return uint(token * (p.channels / 2));
}

void main() {
    // Workgroups on a 2D grid (layer_recorder.h groups_1d: past 65535 groups in x).
    const int row = int((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                        gl_LocalInvocationID.x);
    if (row >= p.rows) return;
    const int parts = p.gather != 0 ? 4 : 1;
    const int words = p.channels / 2;
    float sum = 0.0;
    for (int part = 0; part < parts; ++part) {
        const uint base = part_base(row, part);
        for (int i = 0; i < words; ++i) {
            const vec2 v = unpack_f16x2(x_words[base + uint(i)]);
            sum = sum + v.x * v.x;
            sum = sum + v.y * v.y;
        }
    }
    const float count = float(parts * p.channels);
    float factor;
    if (p.exact != 0) {
        factor = exact_div(1.0, exact_sqrt(exact_add(exact_div(sum, count), kRmsEps)));
    } else {
        factor = inversesqrt(sum / count + kRmsEps);
    }
    uint out_at = uint(p.out_offset + row * p.out_stride);
    int channel = 0;
    for (int part = 0; part < parts; ++part) {
        const uint base = part_base(row, part);
        for (int i = 0; i < words; i += 2) {
            const vec4 v = vec4(unpack_f16x2(x_words[base + uint(i)]), unpack_f16x2(x_words[base + uint(i) + 1u]));
            const vec4 g = vec4(gain[channel], gain[channel + 1], gain[channel + 2], gain[channel + 3]);
            precise vec4 scaled = v * factor;
            precise vec4 y = scaled * g;
            y_words[out_at++] = pack_e4m3x4(y);
            channel += 4;
        }
    }
}
