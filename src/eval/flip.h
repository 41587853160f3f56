// LDR-FLIP: the perceptual difference of two low-dynamic-range images as an observer flipping
// between them sees it (Andersson, Nilsson, Akenine-Moller, Oskarsson, Astrom, Fairchild, "FLIP: A
// Difference Evaluator for Alternating Images", HPG 2020). Written here from the paper; checked
// against the reference implementation (the flip-evaluator 1.7 package) by tests/eval/test_flip.cpp.
//
// Per pixel, in [0, 1] (0: no visible difference; lower is better):
//   colour: both images in YyCxCz (linearised CIELAB's opponent space), each channel filtered with
//     the contrast sensitivity of the eye (achromatic, red-green, blue-yellow: sums of Gaussians
//     over visual degrees), back to linear RGB clamped to [0, 1], to CIELAB, Hunt-adjusted
//     (a, b scaled by 0.01 L), HyAB distance, raised to 0.7, and mapped piecewise linearly so
//     that 0.4 of the largest difference (green against blue) gives 0.95;
//   features: edges and points of the luminance (first and second derivatives of a Gaussian of
//     0.5 * 0.082 degrees), the larger difference of their magnitudes, / sqrt(2), ^0.5;
//   error = colour ^ (1 - features).
// Borders are clamp-to-edge, as the reference's. The mean of the per-pixel errors is the score.
//
// The viewing condition is the reference's default: a 0.7 m wide monitor of 3840 pixels seen from
// 0.7 m, 67.02 pixels per degree.
#pragma once

#include <vector>

#include "eval/plane_filter.h"
#include "sequence/image.h"

namespace swinup::eval {

// Pixels per degree of visual angle of a monitor width_m metres wide showing width_px pixels,
// seen from distance_m metres.
double flip_pixels_per_degree(double distance_m, double width_m, double width_px);

// 0.7 m, 0.7 m, 3840 pixels: 67.0206...
double flip_default_pixels_per_degree();

// The reference image's half of LDR-FLIP (filtered colour and feature magnitudes), computed once
// and compared with any number of test images of its size.
class LdrFlipReference {
public:
    // linear_rgb: >= 3 channels (extra ones ignored) of linear RGB; values are clamped to [0, 1]
    // (NaN counts as 0). Throws std::invalid_argument for an empty image or < 3 channels.
    explicit LdrFlipReference(const Image& linear_rgb,
                              double pixels_per_degree = flip_default_pixels_per_degree());

    // The per-pixel error of a linear RGB test image, row-major. Throws std::invalid_argument when
    // its size differs from the reference's or it has < 3 channels.
    std::vector<float> error_map(const Image& linear_rgb) const;

    int width() const { return width_; }
    int height() const { return height_; }

    // What both images go through before they are compared.
    struct Perceived {
        Plane hunt_l, hunt_a, hunt_b;  // filtered colour, Hunt-adjusted CIELAB
        Plane edges, points;           // feature magnitudes of the luminance
    };

private:
    Perceived perceive(const Image& linear_rgb) const;

    int width_ = 0, height_ = 0;
    double pixels_per_degree_ = 0.0;
    Perceived reference_;
};

// sRGB-encoded display values in [0, 1] (the images LDR-FLIP is defined on) to linear RGB.
Image srgb_decode_image(const Image& srgb);

// The per-pixel LDR-FLIP error of sRGB-encoded test against sRGB-encoded reference.
std::vector<float> ldr_flip_error_map(const Image& reference_srgb, const Image& test_srgb,
                                      double pixels_per_degree = flip_default_pixels_per_degree());

// The mean of a per-pixel error map (0 for an empty one), summed in double.
double mean_flip(const std::vector<float>& error_map);

// Throws std::invalid_argument, naming the metric ("FLIP", "HDR-FLIP") and which image (`what`),
// when the image is empty or has fewer than 3 channels.
void check_flip_input(const Image& image, const char* metric, const char* what);

}  // namespace swinup::eval
