// variants: EXACT_RGBA16F EXACT_RGB10A2 EXACT_RGBA8 EXACT_B10G11R11 FAST_RGBA16F FAST_RGB10A2 FAST_RGBA8 FAST_B10G11R11
#version 450
#extension GL_GOOGLE_include_directive : require
// The output pass (src/frame/output_pixel.h, cpu/output_pass.cpp): per display pixel the
// anisotropic Gaussian of its nearest render pixel's kernel over the 3x3 samples in t-space,
// blended with the Lanczos-3 history; writes the new history (f16) and the output image in the
// input's units. The masks act at the nearest render pixel n, as alpha does (output_pixel.h): the
// transparency mask t scales the still-pixel shift by (1 - t), the reactive mask r raises the
// current frame's share of the displayed colour to share + r * (1 - share) and lowers its share of
// the colour kept as history to share * (1 - r) (the particle reaches the display, not the
// history: docs/masks.md); absent masks (0) leave every bit as it was.
// The output image's format is the variant's: RGBA16F as f16 (alpha 1), RGB10A2
// and RGBA8 as code / max code, which the UNORM conversion maps back to the CPU's integer code,
// B10G11R11 as the f32 of the CPU's packed small floats (packed_formats.glsl), which the image's
// conversion stores unchanged (every such value is one of the format's).
// FAST_*: the hardware's exp2, log2, division and fused multiply-add wherever exact mode computes
// them in integer arithmetic (exact_math.glsl): the kernel weights, sigmas and angle, the colour
// compression, the blend weight's sigmoid, the kernel's normalisation, the output position and
// units, and the Lanczos weights' multiply-adds (bound: tests/vulkan/test_vulkan_frame.cpp).
#include "frame_push.glsl"
#include "debug_view.glsl"
#include "packed_formats.glsl"
#include "pixel_ops.glsl"

#if defined(FAST_RGBA16F) || defined(FAST_RGB10A2) || defined(FAST_RGBA8) || defined(FAST_B10G11R11)
#define FAST 1
#endif

layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) readonly buffer Tc { float tc[]; };
layout(std430, binding = 1) readonly buffer Dilated { float motion[]; };
layout(std430, binding = 2) readonly buffer Head { float head[]; };           // padded grid, 16 a pixel
layout(std430, binding = 3) readonly buffer History { uint history[]; };
layout(std430, binding = 4) writeonly buffer NewHistory { uint new_history[]; };
#if defined(EXACT_RGBA16F) || defined(FAST_RGBA16F)
#define OUT_RGBA16F 1
#elif defined(EXACT_RGB10A2) || defined(FAST_RGB10A2)
#define OUT_RGB10A2 1
#elif defined(EXACT_B10G11R11) || defined(FAST_B10G11R11)
#define OUT_B10G11R11 1
#else
#define OUT_RGBA8 1
#endif
#define OUTPUT_BINDING 5
#include "output_store.glsl"
layout(std430, binding = 6) readonly buffer Scalars { FrameScalars scalars; };
layout(std430, binding = 7) readonly buffer Masks { float masks[]; };  // render w * h * 2, when present
layout(std430, binding = 8) readonly buffer Depth { float depth[]; };  // render w * h reverse-Z (debug view)
// With sharpening (frame.sharpness > 0): the output's values, display w * h * 3, which sharpen.comp
// reads and writes into the image once every pixel is made.
layout(std430, binding = 9) writeonly buffer Presharpen { float presharpen[]; };

// output_pixel.h mask_at: render pixel i's staged mask k, 0 when the frame has none.
float mask_at(int i, int k) {
    return (frame.flags & (kFlagReactiveMask | kFlagTransparencyMask)) != 0u ? masks[i * 2 + k] : 0.0;
}

vec3 history_rgb(int x, int y) {
    const int p = (y * frame.display_width + x) * 2;
    const uint w0 = history[p], w1 = history[p + 1];
    return vec3(f16_unpack(w0, 0u), f16_unpack(w0, 1u), f16_unpack(w1, 0u));
}
#include "history_sampler.glsl"

#ifdef FAST
float t_of(float x) { return log2(1.0 + max(x, 0.0)); }
float t_inverse(float y) { return exp2(y) - 1.0; }
float kernel_weight(float dx, float dy, float s, float c, float sigma_major, float sigma_minor) {
    const float u = c * dx + s * dy;
    const float v = c * dy - s * dx;
    const float a = u / sigma_major;
    const float b = v / sigma_minor;
    return exp2(-0.5 * kExactLog2e * (a * a + b * b));
}
const bool kFused = true;
float div(float a, float b) { return a / b; }
float kernel_sigma(float h) { return exp2(px_clampf(px_is_nan(h) ? 0.0 : h, -4.0, 2.0)); }
float sigmoid(float x) { return 1.0 / (1.0 + exp2(-x * kExactLog2e)); }
float output_units(float v, float exposure, float pre_exposure) { return v / exposure * pre_exposure; }
#else
float t_of(float x) { return px_t_of(x); }
float t_inverse(float y) { return px_t_inverse(y); }
float kernel_weight(float dx, float dy, float s, float c, float sigma_major, float sigma_minor) {
    return px_kernel_weight(dx, dy, s, c, sigma_major, sigma_minor);
}
const bool kFused = false;
float div(float a, float b) { return exact_div(a, b); }
float kernel_sigma(float h) { return px_kernel_sigma(h); }
float sigmoid(float x) { return exact_sigmoid(x); }
float output_units(float v, float exposure, float pre_exposure) { return px_output_units(v, exposure, pre_exposure); }
#endif

float output_position(int o, float scale) {
    const float r = exact_sub(div(float(o) + 0.5, scale), 0.5);
    return exact_add(r, 0.5);
}

float blend_alpha(float raw) { return sigmoid(px_is_nan(raw) ? 0.0 : raw); }

float history_weight(float raw, float mv_x, float mv_y, float still_history_shift, float transparency) {
    const bool still = mv_x == 0.0 && mv_y == 0.0;
    const float shift = transparency != 0.0 ? exact_mul(still_history_shift, exact_sub(1.0, transparency))
                                            : still_history_shift;
    return blend_alpha(still && shift != 0.0 ? exact_add(raw, shift) : raw);
}

float reactive_share(float share, float reactive) {
    return reactive != 0.0 ? exact_add(share, exact_mul(reactive, exact_sub(1.0, share))) : share;
}

float reactive_history_share(float share, float reactive) {
    return reactive != 0.0 ? exact_mul(share, exact_sub(1.0, reactive)) : share;
}

void main() {
    const int ox = int(gl_GlobalInvocationID.x);
    const int oy = int(gl_GlobalInvocationID.y);
    if (ox >= frame.display_width || oy >= frame.display_height) return;

    const float cx = output_position(ox, frame.scale_x);
    const float cy = output_position(oy, frame.scale_y);
    const int nx = px_clampi(px_floor_to_int(cx), 0, frame.width - 1);
    const int ny = px_clampi(px_floor_to_int(cy), 0, frame.height - 1);
    const int head_index = (ny * frame.padded_width + nx) * 16;

    const float sigma_major = kernel_sigma(head[head_index + 4]);
    const float sigma_minor = kernel_sigma(head[head_index + 5]);
    float sin_theta, cos_theta;
    px_kernel_sincos(kFused, head[head_index + 6], sin_theta, cos_theta);

    vec3 sum = vec3(0.0);
    float weight_sum = 0.0;
    for (int dy = -1; dy <= 1; ++dy) {
        const int qy = px_clampi(ny + dy, 0, frame.height - 1);
        const float sy = exact_add(float(qy) + 0.5, frame.jitter_y);
        for (int dx = -1; dx <= 1; ++dx) {
            const int qx = px_clampi(nx + dx, 0, frame.width - 1);
            const float sx = exact_add(float(qx) + 0.5, frame.jitter_x);
            const float w = kernel_weight(exact_sub(sx, cx), exact_sub(sy, cy), sin_theta, cos_theta,
                                          sigma_major, sigma_minor);
            const int t = (qy * frame.width + qx) * 3;
            for (int c = 0; c < 3; ++c) sum[c] = exact_add(sum[c], exact_mul(w, tc[t + c]));
            weight_sum = exact_add(weight_sum, w);
        }
    }
    vec3 current;
    const int tn = (ny * frame.width + nx) * 3;
    for (int c = 0; c < 3; ++c) {
        current[c] = weight_sum < F(0x1e3ce508u) /* 1e-20f */ ? tc[tn + c] : div(sum[c], weight_sum);
    }

    const int m = (ny * frame.width + nx) * 2;
    const float mv_x = motion[m], mv_y = motion[m + 1];
    const float hx = exact_add(float(ox) + 0.5, exact_mul(mv_x, frame.scale_x));
    const float hy = exact_add(float(oy) + 0.5, exact_mul(mv_y, frame.scale_y));
    const bool history_valid = (frame.flags & kFlagHistoryValid) != 0u && px_on_screen(hx, frame.display_width) &&
                               px_on_screen(hy, frame.display_height);
    vec3 result, kept;  // the displayed colour, the colour kept as history
    if (!history_valid) {
        for (int c = 0; c < 3; ++c) result[c] = t_inverse(current[c]);
        kept = result;
    } else {
        const vec3 h = px_clamped_separable_sample(6, true, kFused, frame.display_width, frame.display_height, hx, hy);
        const int n = ny * frame.width + nx;
        const float alpha =
            history_weight(head[head_index + 7], mv_x, mv_y, frame.still_history_shift, mask_at(n, 1));
        const float share = exact_mul(exact_sub(1.0, alpha), weight_sum < 1.0 ? weight_sum : 1.0);
        const float reactive = mask_at(n, 0);
        const float share_out = reactive_share(share, reactive);
        const float share_kept = reactive_history_share(share, reactive);
        for (int c = 0; c < 3; ++c) {
            const float th = t_of(h[c]);
            const float d = exact_sub(current[c], th);
            result[c] = t_inverse(exact_add(th, exact_mul(share_out, d)));
            // r == 0: the same share, so the same bits; not formed twice.
            kept[c] = reactive != 0.0 ? t_inverse(exact_add(th, exact_mul(share_kept, d))) : result[c];
        }
    }

    // The history (f16 of the kept linear value in [0, 65504]) and the output in the input's units.
    const int p = (oy * frame.display_width + ox) * 2;
    new_history[p] = px_encode_half_colour(kept.r) | (px_encode_half_colour(kept.g) << 16);
    new_history[p + 1] = px_encode_half_colour(kept.b);
    const float exposure = scalars.exposure;
    vec3 v;
    for (int c = 0; c < 3; ++c) v[c] = output_units(result[c], exposure, frame.pre_exposure);
    if ((frame.flags & kFlagDebugView) != 0u) {  // debug_view.glsl: the output only, not the history
        int dx, dy;
        const int q = debug_view_source(ox, oy, frame.display_width, frame.display_height, frame.width, frame.height,
                                        dx, dy);
        const int dn = dy * frame.width + dx;
        const int dh = (dy * frame.padded_width + dx) * 16;
        const vec2 dmv = vec2(motion[dn * 2], motion[dn * 2 + 1]);
        const float dalpha = history_weight(head[dh + 7], dmv.x, dmv.y, frame.still_history_shift, mask_at(dn, 1));
        v = debug_view_value(q, vec3(tc[dn * 3], tc[dn * 3 + 1], tc[dn * 3 + 2]), depth[dn], dmv, dalpha, exposure,
                             frame.pre_exposure);
    }
    if (frame.sharpness > 0.0) {  // frame/sharpen_pixel.h: sharpen.comp writes the image
        const int o = (oy * frame.display_width + ox) * 3;
        for (int c = 0; c < 3; ++c) presharpen[o + c] = v[c];
        return;
    }
    const vec4 stored = output_stored(v);
    imageStore(output_image, ivec2(ox, oy), stored);
}
