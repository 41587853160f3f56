// The exposure staging multiplies the colour by (docs/model-spec.md, "Staging"): auto exposure's
// constants and per-pixel and final steps, and the exposure texture's value. One definition for
// the CPU backend (cpu/input_planes.cpp, cpu/cpu_backend.cpp) and the CUDA one
// (cuda/frame/pre_network.cu, cuda/backend/cuda_backend.cu); each sums the per-pixel terms itself,
// in f64, row by row in x order and then the rows in order, so that the sum is the same bits.
#pragma once

#include <cstring>

#include "frame/input_image.h"
#include "frame/pixel_ops.h"
#include "numeric/exact_math.h"
#include "numeric/host_device.h"

namespace swinup {

// Auto exposure: kAutoExposureKey / 2^mean(log2(max(L, kAutoExposureMinLuminance))), clamped to
// [kAutoExposureMin, kAutoExposureMax]; L is the Rec.709 luminance of colour / pre_exposure.
constexpr float kAutoExposureKey = 0.18f;                         // middle grey
constexpr float kAutoExposureMinLuminance = 6.103515625e-05f;     // 2^-14: black counts as this
constexpr float kAutoExposureMin = 9.5367431640625e-07f;          // 2^-20
constexpr float kAutoExposureMax = 1048576.0f;                    // 2^20

// Pixel (x, y)'s term of auto exposure's mean: log2(max(L, 2^-14)) of its colour (made linear
// first when `srgb`; NaN/Inf channels read as 0, as staging replaces them; no LDR clamp).
SWINUP_HD float auto_exposure_log2_luminance(const InputImage& color, int x, int y, float pre_exposure, bool srgb) {
    bool replaced;
    const float r = px::stage_color(px::decode_colour(read_input(color, x, y, 0), srgb), 1.0f, pre_exposure, false,
                                    &replaced);
    const float g = px::stage_color(px::decode_colour(read_input(color, x, y, 1), srgb), 1.0f, pre_exposure, false,
                                    &replaced);
    const float b = px::stage_color(px::decode_colour(read_input(color, x, y, 2), srgb), 1.0f, pre_exposure, false,
                                    &replaced);
    const float luminance = exact::add(exact::add(exact::mul(0.2126f, r), exact::mul(0.7152f, g)),
                                       exact::mul(0.0722f, b));
    return exact::log2(px::maxf(luminance, kAutoExposureMinLuminance));
}

// The exposure of the f64 sum of every pixel's term over a width x height image. f64 division and
// product are IEEE-rounded on the host and on the GPU alike (nvcc never contracts them).
SWINUP_HD float auto_exposure_of_sum(double log2_luminance_sum, int width, int height) {
    const float mean_log2 =
        static_cast<float>(log2_luminance_sum / (static_cast<double>(width) * static_cast<double>(height)));
    return px::clampf(exact::div(kAutoExposureKey, exact::exp2(mean_log2)), kAutoExposureMin, kAutoExposureMax);
}

// The exposure texture's value (a 1x1 R32F the caller's pointer names, host memory for a host
// reader, device memory for a kernel), or 1 when it is not a positive finite number: bad data is
// replaced like any other input, never an error (a device texture could not be checked anyway).
// The exposure an exposure texture's texel gives: the value when finite and positive, else 1.
SWINUP_HD float exposure_of_texel(float v) { return (px::is_finite(v) && v > 0.0f) ? v : 1.0f; }

SWINUP_HD float read_exposure_texture(const void* texture) {
    float v;
#if defined(__CUDA_ARCH__)
    v = *static_cast<const float*>(texture);
#else
    std::memcpy(&v, texture, sizeof v);  // the caller's pointer: no aliasing assumptions
#endif
    return exposure_of_texel(v);
}

}  // namespace swinup
