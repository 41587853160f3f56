// variants: OUT_RGBA16F OUT_RGB10A2 OUT_RGBA8 OUT_B10G11R11
#version 450
#extension GL_GOOGLE_include_directive : require
// The output's sharpening (swinup_dispatch_desc.sharpness > 0), the GLSL twin of
// src/frame/sharpen_pixel.h: per display pixel, its value and its four neighbours' (clamped to the
// image) from the output pass's presharpen buffer, the contrast-adaptive lobe, and the result
// stored into the output image in its format (output_store.glsl). The history was stored by the
// output pass before: sharpening never feeds the next frame. Exact-mode arithmetic: the CPU's bits.
#include "frame_push.glsl"
#include "pixel_ops.glsl"

#define OUTPUT_BINDING 1
#include "output_store.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) readonly buffer Presharpen { float presharpen[]; };  // display w * h * 3

vec3 value_at(int x, int y) {
    const int i = (px_clampi(y, 0, frame.display_height - 1) * frame.display_width +
                   px_clampi(x, 0, frame.display_width - 1)) * 3;
    return vec3(presharpen[i], presharpen[i + 1], presharpen[i + 2]);
}

void main() {
    const int x = int(gl_GlobalInvocationID.x);
    const int y = int(gl_GlobalInvocationID.y);
    if (x >= frame.display_width || y >= frame.display_height) return;
    const vec3 c = value_at(x, y), n = value_at(x, y - 1), w = value_at(x - 1, y), e = value_at(x + 1, y),
               s = value_at(x, y + 1);
    vec3 lo, hi;
    float ratio = 1.0;
    for (int k = 0; k < 3; ++k) {
        lo[k] = px_minf(px_minf(px_minf(n[k], w[k]), px_minf(e[k], s[k])), c[k]);
        hi[k] = px_maxf(px_maxf(px_maxf(n[k], w[k]), px_maxf(e[k], s[k])), c[k]);
        const float r = hi[k] > 0.0 ? exact_div(px_maxf(lo[k], 0.0), hi[k]) : 0.0;
        ratio = px_minf(ratio, r);
    }
    const float lobe = exact_mul(exact_mul(frame.sharpness, 0.1875 /* 3/16, exact */), ratio);
    vec3 v = c;
    if (lobe != 0.0) {
        const float denominator = exact_sub(1.0, exact_mul(4.0, lobe));
        for (int k = 0; k < 3; ++k) {
            const float ring = exact_add(exact_add(n[k], w[k]), exact_add(e[k], s[k]));
            v[k] = px_clampf(exact_div(exact_sub(c[k], exact_mul(lobe, ring)), denominator), lo[k], hi[k]);
        }
    }
    imageStore(output_image, ivec2(x, y), output_stored(v));
}
