// The 1-D reconstruction kernels of the spatial baselines, as functions of the distance x between
// an output position and a sample, in render pixels. Each has a support radius: k(x) = 0 for
// |x| >= radius. The resampler (spatial_upscale.h) normalises the weights it gathers, so a kernel
// need not sum to exactly 1 at every phase.
#pragma once

#include <cmath>
#include <numbers>

namespace swinup::eval {

// Linear interpolation ("tent"): reproduces constants and linear ramps exactly.
inline float bilinear_kernel(float x) {
    const float a = std::abs(x);
    return a < 1.0f ? 1.0f - a : 0.0f;
}
inline constexpr int kBilinearRadius = 1;

// Keys' cubic convolution with a = -0.5 (Catmull-Rom spline): interpolating (k(0) = 1, k(n) = 0),
// reproduces polynomials up to degree 2 (Keys 1981).
inline float catmull_rom_kernel(float x) {
    const float a = std::abs(x);
    if (a < 1.0f) return (1.5f * a - 2.5f) * a * a + 1.0f;
    if (a < 2.0f) return ((-0.5f * a + 2.5f) * a - 4.0f) * a + 2.0f;
    return 0.0f;
}
inline constexpr int kCatmullRomRadius = 2;

// sin(pi x) / (pi x), 1 at 0.
inline float normalized_sinc(float x) {
    if (std::abs(x) < 1e-6f) return 1.0f;
    const double px = std::numbers::pi * double(x);
    return float(std::sin(px) / px);
}

// Lanczos with `lobes` lobes: sinc(x) sinc(x / lobes) for |x| < lobes, else 0.
inline float lanczos_kernel(float x, int lobes) {
    if (std::abs(x) >= float(lobes)) return 0.0f;
    return normalized_sinc(x) * normalized_sinc(x / float(lobes));
}
inline float lanczos3_kernel(float x) { return lanczos_kernel(x, 3); }
inline constexpr int kLanczos3Radius = 3;

}  // namespace swinup::eval
