// The automatic reactive mask of one render pixel (swinup_generate_reactive_mask, docs/masks.md):
// how far the colour after the engine's transparent and animated pass differs from the opaque
// colour before it. One definition for every backend (host/device): the CPU runs it on host
// memory, the CUDA backend the same function on device memory; the Vulkan shader
// (vulkan/shaders/frame/reactive_mask.comp) is its GLSL twin, checked against it bit for bit.
#pragma once

#include <cstdint>
#include <cstring>

#include "frame/output_encoding.h"
#include "frame/pixel_ops.h"
#include "numeric/exact_math.h"
#include "numeric/half.h"
#include "numeric/host_device.h"
#include "swinup/swinup.h"

namespace swinup {

// swinup_reactive_mask_desc's parameters, read once per call.
struct ReactiveMaskParams {
    float scale = 1.0f;         // multiplies the difference
    float threshold = 0.2f;     // binary mode: the value from which binary_value is written
    float binary_value = 0.9f;  // binary mode: what is written there (0 elsewhere)
    bool tonemap = true;        // SWINUP_REACTIVE_TONEMAP: compare x / (1 + x)
    bool binary = false;        // SWINUP_REACTIVE_THRESHOLD
    bool max_channel = false;   // SWINUP_REACTIVE_MAX_CHANNEL: max |d| over R, G, B; else luma of |d|
};

// The parameters of a (validated) swinup_reactive_mask_desc.
inline ReactiveMaskParams reactive_mask_params(const swinup_reactive_mask_desc& d) {
    ReactiveMaskParams p;
    p.scale = d.scale;
    p.threshold = d.threshold;
    p.binary_value = d.binary_value;
    p.tonemap = (d.flags & SWINUP_REACTIVE_TONEMAP) != 0;
    p.binary = (d.flags & SWINUP_REACTIVE_THRESHOLD) != 0;
    p.max_channel = (d.flags & SWINUP_REACTIVE_MAX_CHANNEL) != 0;
    return p;
}

// One channel as compared: NaN/Inf read as 0 (the inputs' rule), x / (1 + x) of max(x, 0) when
// tonemapping (a bright highlight then differs by at most 1, and negative colour, which
// x / (1 + x) would blow up near -1, counts as 0).
SWINUP_HD float reactive_channel(float x, bool tonemap) {
    const float v = px::is_finite(x) ? x : 0.0f;
    if (!tonemap) return v;
    const float c = px::maxf(v, 0.0f);
    return exact::div(c, exact::add(1.0f, c));
}

// The mask value of a pixel from its opaque and final colours (RGB, as given):
//   d = |f(final) - f(opaque)| per channel; diff = max(d) or 0.2126 d.r + 0.7152 d.g + 0.0722 d.b
//   (Rec. 709 luma, summed in that order); value = min(1, scale * diff); binary mode: value >=
//   threshold ? binary_value : 0. In [0, 1] for parameters in their documented ranges.
SWINUP_HD float reactive_mask_value(const float opaque[3], const float final_color[3], const ReactiveMaskParams& p) {
    float d[3];
    for (int c = 0; c < 3; ++c) {
        const float diff = exact::sub(reactive_channel(final_color[c], p.tonemap), reactive_channel(opaque[c], p.tonemap));
        d[c] = diff < 0.0f ? -diff : diff;
    }
    const float difference =
        p.max_channel ? px::maxf(px::maxf(d[0], d[1]), d[2])
                      : exact::add(exact::add(exact::mul(0.2126f, d[0]), exact::mul(0.7152f, d[1])), exact::mul(0.0722f, d[2]));
    const float value = px::minf(1.0f, exact::mul(p.scale, difference));
    if (p.binary) return value >= p.threshold ? p.binary_value : 0.0f;
    return value;
}

// Writes a mask value in [0, 1] as pixel x of a row of a mask format (R8_UNORM: to the nearest
// code, R16F: to the nearest half, R32F as is).
SWINUP_HD void write_mask_pixel(swinup_format format, float v, uint8_t* row, int x) {
    if (format == SWINUP_FORMAT_R8_UNORM) {
        row[x] = static_cast<uint8_t>(px::unorm_encode(v, 255.0f));
    } else if (format == SWINUP_FORMAT_R16F) {
        const uint16_t h = f32_to_f16_bits(v);
        std::memcpy(row + static_cast<size_t>(x) * 2, &h, sizeof h);
    } else {
        std::memcpy(row + static_cast<size_t>(x) * 4, &v, sizeof v);
    }
}

}  // namespace swinup
