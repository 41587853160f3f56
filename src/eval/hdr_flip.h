// HDR-FLIP: FLIP for linear high-dynamic-range images (Andersson, Nilsson, Shirley,
// Akenine-Moller, "Visualizing Errors in Rendered High Dynamic Range Images", Eurographics 2021).
// Written here from the paper; checked against the reference implementation (flip-evaluator 1.7)
// by tests/eval/test_flip.cpp.
//
// Both images are seen at a range of exposures 2^c: each exposed image is tone mapped per channel
// (the reference's default, ACES in Narkowicz's fit with the 0.6 pre-scale, clamped to [0, 1]) and
// compared with LDR-FLIP (flip.h); a pixel's error is its largest over the exposures.
// The exposures come from the reference's luminance Y (Rec. 709 weights): with x85 the value the
// tone mapper takes to 0.85,
//   start = log2(x85 / max Y)     (the brightest pixel just below white)
//   stop  = log2(x85 / median Y)  (the median pixel at the same brightness)
//   count = max(2, ceil(stop - start)), evenly spaced from start to stop.
// The median is the element at index n/2 of the sorted luminances. A median (or maximum) of 0 is
// replaced by FLT_EPSILON, as the reference does for the median; for an all-black reference,
// where the reference stops with an error, this gives two equal exposures of 2^24 x85.
// Negative, NaN and infinite values count as 0.
#pragma once

#include <vector>

#include "eval/flip.h"
#include "sequence/image.h"

namespace swinup::eval {

struct FlipExposures {
    double start = 0.0;  // log2 of the first exposure
    double stop = 0.0;   // log2 of the last
    int count = 0;       // >= 2

    double at(int i) const { return start + (stop - start) * double(i) / double(count - 1); }
};

// The tone mapper, for one value of linear colour after exposure: in [0, 1].
float flip_aces_tone_map(float x);

// The exposure range of a linear RGB reference (>= 3 channels; throws std::invalid_argument else).
FlipExposures hdr_flip_exposures(const Image& reference);

// The per-pixel HDR-FLIP error of each test image against the reference, all linear RGB of one
// size: the reference's half of each exposure is computed once for every test. Throws
// std::invalid_argument for an empty image, < 3 channels or a size that differs.
std::vector<std::vector<float>> hdr_flip_error_maps(
    const Image& reference, const std::vector<const Image*>& tests,
    double pixels_per_degree = flip_default_pixels_per_degree());

// hdr_flip_error_maps for one test image.
std::vector<float> hdr_flip_error_map(const Image& reference, const Image& test,
                                      double pixels_per_degree = flip_default_pixels_per_degree());

}  // namespace swinup::eval
