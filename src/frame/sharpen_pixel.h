// The output's optional sharpening (swinup_dispatch_desc.sharpness), a contrast-adaptive pass in the
// manner of FSR's RCAS, on the output's linear values (in the output's units, before the format's
// encoding) and after the history was stored, so it never feeds the next frame. One definition for
// the CPU backend (cpu/output_pass.cpp) and the Vulkan one (its GLSL twin,
// shaders/frame/sharpen.comp):
//   per channel over the pixel c and its four neighbours n, w, e, s (clamped to the image):
//     lo = min, hi = max of the five; the pixel's lobe = sharpness * 3/16 * min over the channels of
//     lo / hi (0 where hi is 0): small where the local contrast is already high;
//   out = (c - lobe * (n + w + e + s)) / (1 - 4 lobe), clamped to [lo, hi] per channel.
// sharpness 0 returns c's bits. Exact-mode arithmetic, so every backend writes the same bits.
#pragma once

#include "frame/pixel_ops.h"
#include "numeric/exact_math.h"
#include "numeric/host_device.h"

namespace swinup {

constexpr float kSharpenLobeLimit = 0.1875f;  // 3/16, RCAS's limit: 1 - 4 lobe >= 1/4

// The sharpened value of pixel c from its four neighbours (each 3 channels).
SWINUP_HD void sharpen_pixel(const float* c, const float* n, const float* w, const float* e, const float* s,
                             float sharpness, float out[3]) {
    float lo[3], hi[3];
    float ratio = 1.0f;
    for (int k = 0; k < 3; ++k) {
        lo[k] = px::minf(px::minf(px::minf(n[k], w[k]), px::minf(e[k], s[k])), c[k]);
        hi[k] = px::maxf(px::maxf(px::maxf(n[k], w[k]), px::maxf(e[k], s[k])), c[k]);
        const float r = hi[k] > 0.0f ? exact::div(px::maxf(lo[k], 0.0f), hi[k]) : 0.0f;
        ratio = px::minf(ratio, r);
    }
    const float lobe = exact::mul(exact::mul(sharpness, kSharpenLobeLimit), ratio);
    if (lobe == 0.0f) {
        for (int k = 0; k < 3; ++k) out[k] = c[k];
        return;
    }
    const float denominator = exact::sub(1.0f, exact::mul(4.0f, lobe));
    for (int k = 0; k < 3; ++k) {
        const float ring = exact::add(exact::add(n[k], w[k]), exact::add(e[k], s[k]));
        const float v = exact::div(exact::sub(c[k], exact::mul(lobe, ring)), denominator);
        out[k] = px::clampf(v, lo[k], hi[k]);
    }
}

}  // namespace swinup
