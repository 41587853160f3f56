// The output pass of one display pixel (docs/model-spec.md, "Output pass"): the anisotropic
// Gaussian over the 3x3 jittered render samples in t-space, blended with the reprojected history.
// One definition for the CPU and CUDA backends.
#pragma once

#include <cstdint>

#include "numeric/host_device.h"
#include "frame/mask_pixel.h"
#include "frame/output_encoding.h"
#include "frame/pixel_ops.h"
#include "frame/stage_pixel.h"

namespace swinup {

// Head outputs the output pass reads (model.md, "Head outputs").
constexpr int kHeadSigmaMajor = 4;
constexpr int kHeadSigmaMinor = 5;
constexpr int kHeadAngle = 6;
constexpr int kHeadAlpha = 7;

struct OutputCurrent : FrameGeometry {
    const float* tc = nullptr;      // width * height * 3: t(staged colour), f32
    const float* motion = nullptr;  // width * height * 2: dilated motion, render pixels
    const float* head = nullptr;    // head_stride * rows * 16: raw head outputs (padded grid)
    int head_stride = 0;            // padded render width
    float still_history_shift = 0.0f;  // the network's (ModelConfig): see history_weight()
    // width * height * 2: the staged (reactive, transparency) pair of each render pixel
    // (frame/mask_pixel.h); nullptr when the dispatch has no mask: both read as 0.
    const float* masks = nullptr;
    // SWINUP_FLAG_DEBUG_VIEW (frame/debug_view.h): the frame's reverse-Z depth (width * height) the
    // view shows; nullptr: no debug view.
    const float* debug_depth = nullptr;
};

// Render pixel i's staged mask k (kReactiveMask, kTransparencyMask): 0 without masks.
SWINUP_HD float mask_at(const float* masks, int64_t i, int k) { return masks != nullptr ? masks[i * 2 + k] : 0.0f; }

struct OutputPrevious {
    bool valid = false;                 // false on the first frame and after a reset
    const uint16_t* history = nullptr;  // display_width * display_height * 4 f16: the last output
};

// The pieces below are shared with the CUDA backend's fast-mode output pass, which evaluates the
// same positions, nearest pixel, sample offsets and alpha (and only approximates the kernel
// weights and the colour compression): docs/cuda-kernels.md, "Output pass".

// Display pixel o's position along one axis in continuous render coordinates: r + 0.5 with
// r = (o + 0.5) / s - 0.5 (model-spec.md: divide, subtract, then add the half back).
SWINUP_HD float output_position(int o, float scale) {
    const float r = exact::sub(exact::div(static_cast<float>(o) + 0.5f, scale), 0.5f);
    return exact::add(r, 0.5f);
}

// The render pixel nearest to the continuous position c, clamped to the image.
SWINUP_HD int nearest_render_pixel(float c, int size) { return px::clampi(px::floor_to_int(c), 0, size - 1); }

// Render pixel q's sample position along one axis: q + 0.5 + jitter.
SWINUP_HD float render_sample_position(int q, float jitter) {
    return exact::add(static_cast<float>(q) + 0.5f, jitter);
}

// The history weight of a raw head output (before the validity test): sigmoid, NaN read as 0.
SWINUP_HD float blend_alpha(float raw) { return exact::sigmoid(raw == raw ? raw : 0.0f); }

// Render pixel n's history weight: blend_alpha of head output 7, its logit raised by the network's
// still_history_shift where n's dilated motion `mv` is exactly zero (weights format 4). There the
// history is read at whole-pixel offsets, where Lanczos-3 returns each pixel unchanged, so the
// history loses nothing by being kept, and a still image can settle instead of taking a large
// share of every new jittered sample (docs/model-spec.md, "Output pass").
// The transparency & composition mask t switches that rule off in proportion: a zero motion
// vector there describes the opaque surface behind, not the blended colour (glass over a moving
// background, a scrolling texture), so the shift becomes shift * (1 - t) (docs/masks.md). t = 0
// keeps the shift's bits (the product is not formed).
SWINUP_HD float history_weight(float raw, float mv_x, float mv_y, float still_history_shift,
                               float transparency = 0.0f) {
    const bool still = mv_x == 0.0f && mv_y == 0.0f;
    const float shift = transparency != 0.0f ? exact::mul(still_history_shift, exact::sub(1.0f, transparency))
                                             : still_history_shift;
    return blend_alpha(still && shift != 0.0f ? exact::add(raw, shift) : raw);
}

// The reactive mask r raises the current frame's share of the DISPLAYED colour toward 1:
// share + r * (1 - share), in three f32 roundings (a difference, a product, a sum). r = 1 replaces
// the history in the output, whatever the network's alpha: that is what the mask promises, also
// for weights that never saw one (docs/masks.md). r = 0 returns the share unchanged (its bits).
SWINUP_HD float reactive_share(float share, float reactive) {
    return reactive != 0.0f ? exact::add(share, exact::mul(reactive, exact::sub(1.0f, share))) : share;
}

// The current frame's share of the colour KEPT AS HISTORY under the reactive mask r:
// share * (1 - r), in two f32 roundings (a difference, a product). r = 1 keeps the reprojected
// previous history (the opaque scene under a particle, moved by the opaque surface's motion
// vectors, which is what they describe): the particle reaches the display but never the history,
// so it leaves no trail where the mask is 0 on the next frames (docs/masks.md, "The output pass").
// r = 0 returns the share unchanged (its bits).
SWINUP_HD float reactive_history_share(float share, float reactive) {
    return reactive != 0.0f ? exact::mul(share, exact::sub(1.0f, reactive)) : share;
}

// The current frame's share of the blend where there is history: (1 - alpha) * min(1, sum of the
// kernel's weights). A weight is 1 for a sample on the display pixel's centre and falls with its
// distance in units of the kernel, so a pixel that this frame's jittered samples missed keeps its
// history (the jitter-aware accumulation of temporal upscalers), and one a sample hit takes the
// network's full 1 - alpha (docs/model-spec.md, "Output pass"; weights format_version 2).
SWINUP_HD float current_share(float alpha, float weight_sum) {
    return exact::mul(exact::sub(1.0f, alpha), weight_sum < 1.0f ? weight_sum : 1.0f);
}

// The reconstruction kernel of one render pixel's head outputs 4-6: its two sigmas and its angle.
SWINUP_HD void kernel_shape(const float* h, float* sigma_major, float* sigma_minor, float* sin_theta,
                            float* cos_theta) {
    *sigma_major = px::kernel_sigma(h[kHeadSigmaMajor]);
    *sigma_minor = px::kernel_sigma(h[kHeadSigmaMinor]);
    px::kernel_sincos(h[kHeadAngle], sin_theta, cos_theta);
}

// Head outputs 4-7 of render pixel (nx, ny), evaluated where output_pixel_with() asks for them
// (the definition; the GPU's exact output kernel reads them this way).
struct KernelFromHead {
    const OutputCurrent& cur;
    SWINUP_HD const float* head_of(int nx, int ny) const {
        return cur.head + (static_cast<int64_t>(ny) * cur.head_stride + nx) * 16;
    }
    SWINUP_HD void shape(int nx, int ny, float* sigma_major, float* sigma_minor, float* sin_theta,
                         float* cos_theta) const {
        kernel_shape(head_of(nx, ny), sigma_major, sigma_minor, sin_theta, cos_theta);
    }
    SWINUP_HD float alpha(int nx, int ny) const {
        const int64_t i = static_cast<int64_t>(ny) * cur.width + nx;
        const float* mv = cur.motion + i * 2;
        return history_weight(head_of(nx, ny)[kHeadAlpha], mv[0], mv[1], cur.still_history_shift,
                              mask_at(cur.masks, i, kTransparencyMask));
    }
};

// What a display pixel reads of its nearest render pixel's head outputs 4-7, computed once per
// render pixel (pixel_kernel) into a table: at scale s each render pixel is the nearest of about
// s^2 display pixels, which would otherwise each evaluate its two exp2, its sincos and its sigmoid
// again (the CPU's output pass).
struct PixelKernel {
    float sigma_major, sigma_minor, sin_theta, cos_theta, alpha;
};

// h: the render pixel's 16 head outputs; mv: its dilated motion (2 floats); transparency: its
// staged transparency mask (0 without one).
SWINUP_HD PixelKernel pixel_kernel(const float* h, const float* mv, float still_history_shift,
                                   float transparency = 0.0f) {
    PixelKernel k;
    kernel_shape(h, &k.sigma_major, &k.sigma_minor, &k.sin_theta, &k.cos_theta);
    k.alpha = history_weight(h[kHeadAlpha], mv[0], mv[1], still_history_shift, transparency);
    return k;
}

// n's kernel and history weight read from such a table (width entries per row).
struct KernelFromTable {
    const PixelKernel* kernels;
    int width;
    SWINUP_HD void shape(int nx, int ny, float* sigma_major, float* sigma_minor, float* sin_theta,
                         float* cos_theta) const {
        const PixelKernel& k = kernels[static_cast<int64_t>(ny) * width + nx];
        *sigma_major = k.sigma_major;
        *sigma_minor = k.sigma_minor;
        *sin_theta = k.sin_theta;
        *cos_theta = k.cos_theta;
    }
    SWINUP_HD float alpha(int nx, int ny) const { return kernels[static_cast<int64_t>(ny) * width + nx].alpha; }
};

// The colours of display pixel (ox, oy), linear in the exposed units of staging (before f16
// rounding and before the output format's encoding): `out`, the displayed one, and `kept`, the one
// kept as the next frame's history (history_value). They differ only where n's reactive mask is
// not 0 and there is history (reactive_share, reactive_history_share). `kernel` supplies n's
// kernel and history weight: KernelFromHead or KernelFromTable, the same values. n's masks act as
// alpha does, at n.
template <class Kernel>
SWINUP_HD void output_pixel_with(const OutputCurrent& cur, const OutputPrevious& prev, int ox, int oy,
                                 const Kernel& kernel, float out[3], float kept[3]) {
    // Position in render pixels and the nearest render pixel n.
    const float cx = output_position(ox, cur.scale_x);  // r + 0.5: continuous coordinates
    const float cy = output_position(oy, cur.scale_y);
    const int nx = nearest_render_pixel(cx, cur.width);
    const int ny = nearest_render_pixel(cy, cur.height);

    // The kernel of n over the 3x3 samples around it.
    float sigma_major, sigma_minor, sin_theta, cos_theta;
    kernel.shape(nx, ny, &sigma_major, &sigma_minor, &sin_theta, &cos_theta);
    float sum[3] = {0.0f, 0.0f, 0.0f};
    float weight_sum = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        const int qy = px::clampi(ny + dy, 0, cur.height - 1);
        const float sy = render_sample_position(qy, cur.jitter_y);
        for (int dx = -1; dx <= 1; ++dx) {
            const int qx = px::clampi(nx + dx, 0, cur.width - 1);
            const float sx = render_sample_position(qx, cur.jitter_x);
            const float w = px::kernel_weight(exact::sub(sx, cx), exact::sub(sy, cy), sin_theta,
                                              cos_theta, sigma_major, sigma_minor);
            const float* t = cur.tc + (static_cast<int64_t>(qy) * cur.width + qx) * 3;
            for (int c = 0; c < 3; ++c) sum[c] = exact::add(sum[c], exact::mul(w, t[c]));
            weight_sum = exact::add(weight_sum, w);
        }
    }
    float current[3];
    const float* tn = cur.tc + (static_cast<int64_t>(ny) * cur.width + nx) * 3;
    for (int c = 0; c < 3; ++c)
        current[c] = weight_sum < 1e-20f ? tn[c] : exact::div(sum[c], weight_sum);

    // History at o + mv(n) * s, weighted by 1 - current_share (0 without history or off screen).
    const float* mv = cur.motion + (static_cast<int64_t>(ny) * cur.width + nx) * 2;
    const float hx = exact::add(static_cast<float>(ox) + 0.5f, exact::mul(mv[0], cur.scale_x));
    const float hy = exact::add(static_cast<float>(oy) + 0.5f, exact::mul(mv[1], cur.scale_y));
    const bool history_valid = prev.valid && px::on_screen(hx, cur.display_width) &&
                               px::on_screen(hy, cur.display_height);
    if (!history_valid) {
        for (int c = 0; c < 3; ++c) out[c] = kept[c] = px::t_inverse(current[c]);
        return;
    }
    float history[3];
    px::lanczos3_sample(HalfRgbFetch{prev.history, cur.display_width}, cur.display_width,
                        cur.display_height, hx, hy, history);
    const float share = current_share(kernel.alpha(nx, ny), weight_sum);
    const float reactive = mask_at(cur.masks, static_cast<int64_t>(ny) * cur.width + nx, kReactiveMask);
    const float share_out = reactive_share(share, reactive);
    const float share_kept = reactive_history_share(share, reactive);
    for (int c = 0; c < 3; ++c) {
        const float th = px::t_of(history[c]);
        const float d = exact::sub(current[c], th);
        out[c] = px::t_inverse(exact::add(th, exact::mul(share_out, d)));
        // r == 0: the same share, so the same bits; not formed twice.
        kept[c] = reactive != 0.0f ? px::t_inverse(exact::add(th, exact::mul(share_kept, d))) : out[c];
    }
}

// output_pixel_with() reading n's head outputs directly.
SWINUP_HD void output_pixel(const OutputCurrent& cur, const OutputPrevious& prev, int ox, int oy,
                            float out[3], float kept[3]) {
    output_pixel_with(cur, prev, ox, oy, KernelFromHead{cur}, out, kept);
}

// The displayed colour alone (checks that do not look at the history).
SWINUP_HD void output_pixel(const OutputCurrent& cur, const OutputPrevious& prev, int ox, int oy,
                            float out[3]) {
    float kept[3];
    output_pixel(cur, prev, ox, oy, out, kept);
}

// The value kept as history (and the f16 the next frame reads) of a `kept` colour: finite, in [0, 65504], the same
// f16 as the RGBA16F output of an exposure and pre-exposure of 1 (EncodeHalfColour).
SWINUP_HD uint16_t history_value(float out) { return px::encode_half_colour(out); }

}  // namespace swinup
