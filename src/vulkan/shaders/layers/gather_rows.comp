// Copies rows of packed values (whole uints) into rows of another layout, unchanged:
// - gather 0: output row r = input row r (the head MLP's input: the staged slots after the head
//   norm's 32 values in each 48-value row);
// - gather 1: output row r = 4 t + q = input row of quadrant q of coarse token t, in a fine grid
//   2 coarse_w wide (lite's embed input: the 2x2 pixels' 16 slots concatenated in quadrant order).
#version 450
#extension GL_GOOGLE_include_directive : require

#include "window_map.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer In { uint in_words[]; };
layout(std430, binding = 1) writeonly buffer Out { uint out_words[]; };

layout(push_constant) uniform Params {
    int rows;        // output rows
    int words;       // uints copied per row
    int in_stride;   // uints per input row
    int out_stride;  // uints per output row
    int out_offset;  // first uint of the output
    int gather;
    int coarse_w;
} p;

void main() {
    // Workgroups on a 2D grid (layer_recorder.h groups_1d: past 65535 groups in x).
    const int index = int((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                          gl_LocalInvocationID.x);
    if (index >= p.rows * p.words) return;
    const int row = index / p.words;
    const int word = index % p.words;
    int source = row;
    if (p.gather != 0) {
        const int t = row / 4;
        const ivec2 f = quadrant_fine_token(t % p.coarse_w, t / p.coarse_w, row % 4);
        source = f.y * 2 * p.coarse_w + f.x;
    }
    out_words[p.out_offset + row * p.out_stride + word] = in_words[source * p.in_stride + word];
}
