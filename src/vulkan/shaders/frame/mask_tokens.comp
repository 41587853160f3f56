#version 450
#extension GL_GOOGLE_include_directive : require
// The masks as the network's mask_embed reads them (docs/masks.md; cpu/staging.cpp stage_masks,
// cpu/network.cpp embed_lite / embed_full): each padded pixel's staged (reactive, transparency)
// pair, from the nearest real pixel (clamp to edge, like the slots), rounded to e4m3 like the slots
// (frame/mask_pixel.h mask_network_value), 4 codes a uint, low byte first.
//   option 1 (lite): one token per 2x2 pixels of the padded grid, its pixels' pairs in quadrant
//     order (index (dy * 2 + dx) * 2 + k): 8 codes, 2 uints a token;
//   option 0 (full): one token per padded pixel, (r, t, 0, 0): 1 uint (mask_embed's K is padded to
//     4 with zero weights, which add exact zeros to a sum that starts at +0).
// One invocation per token.
#include "frame_push.glsl"
#include "pixel_ops.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) readonly buffer Masks { float masks[]; };  // render w * h * 2
layout(std430, binding = 1) writeonly buffer Tokens { uint tokens[]; };

// The e4m3 codes of padded pixel (x, y)'s pair.
uvec2 pair_codes(int x, int y) {
    const int i = (min(y, frame.height - 1) * frame.width + min(x, frame.width - 1)) * 2;
    return uvec2(px_slot_code(masks[i]), px_slot_code(masks[i + 1]));
}

void main() {
    const int tx = int(gl_GlobalInvocationID.x);
    const int ty = int(gl_GlobalInvocationID.y);
    if (frame.option == 1u) {
        const int w1 = frame.padded_width / 2;
        if (tx >= w1 || ty >= frame.padded_height / 2) return;
        uvec2 q[4];
        for (int k = 0; k < 4; ++k) q[k] = pair_codes(2 * tx + (k & 1), 2 * ty + (k >> 1));
        const int t = (ty * w1 + tx) * 2;
        tokens[t] = e4m3_pack4(q[0].x, q[0].y, q[1].x, q[1].y);
        tokens[t + 1] = e4m3_pack4(q[2].x, q[2].y, q[3].x, q[3].y);
    } else {
        if (tx >= frame.padded_width || ty >= frame.padded_height) return;
        const uvec2 c = pair_codes(tx, ty);
        tokens[ty * frame.padded_width + tx] = e4m3_pack4(c.x, c.y, 0u, 0u);
    }
}
