// The reactive and transparency & composition masks, per pixel (docs/masks.md): reading a mask
// input and staging its value. One definition for every backend: the CPU reads host masks with it,
// validation scans host masks with it, and the GPU backends' staging is to call the same functions.
#pragma once

#include <cstdint>

#include "frame/input_image.h"
#include "frame/pixel_ops.h"
#include "numeric/exact_math.h"
#include "numeric/host_device.h"

namespace swinup {

// The two masks of a frame, in this order wherever they are stored together: a staged mask plane
// holds (reactive, transparency) pairs per pixel.
enum MaskIndex { kReactiveMask = 0, kTransparencyMask = 1, kMasks = 2 };

// Pixel (x, y) of a mask input as the engine gave it: R8_UNORM is code / 255, R16F and R32F the
// stored value (f16 converted exactly).
SWINUP_HD float read_mask_input(const InputImage& im, int x, int y) {
#if defined(__CUDA_ARCH__)
    if (im.unorm8 && im.texture != 0) {  // an imported R8_UNORM image: its code, as an integer
        const unsigned char code = tex2D<unsigned char>(im.texture, static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f);
        return exact::div(static_cast<float>(code), 255.0f);
    }
#endif
    if (im.unorm8) {
        const uint8_t* row = static_cast<const uint8_t*>(im.data) + static_cast<size_t>(y) * im.pitch;
        return exact::div(static_cast<float>(row[x]), 255.0f);
    }
    return read_input(im, x, y, 0);
}

// What staging makes of one mask value: clamp(value, 0, 1), NaN and +-Inf read as 0 (not as the
// clamp's end: an Inf is a broken value, not a strong mask). *nonfinite is set for NaN/Inf,
// *out_of_range for a finite value outside [0, 1] (host masks never have one: validation refuses
// them; device masks are clamped and counted).
SWINUP_HD float stage_mask(float raw, bool* nonfinite, bool* out_of_range) {
    *nonfinite = !px::is_finite(raw);
    *out_of_range = !*nonfinite && (raw < 0.0f || raw > 1.0f);
    if (*nonfinite) return 0.0f;
    return px::clampf(raw, 0.0f, 1.0f);
}

// Pixel (x, y) of a mask plane as staging writes it: stage_mask() of the input when it is given
// (input_given: memory or an imported image's texture), 0 when it is absent.
SWINUP_HD float staged_mask_pixel(const InputImage& im, int x, int y, bool* nonfinite, bool* out_of_range) {
    *nonfinite = false;
    *out_of_range = false;
    return input_given(im) ? stage_mask(read_mask_input(im, x, y), nonfinite, out_of_range) : 0.0f;
}

// A staged mask value as the network reads it: rounded to e4m3 like the slots. Values in [0, 1]
// keep 3 significant bits (1/16 steps from 0.5 to 1, finer below), enough for a blend fraction
// the network only reads as a cue; the output pass uses the unrounded value.
SWINUP_HD float mask_network_value(float staged) { return px::slot_value(staged); }

}  // namespace swinup
