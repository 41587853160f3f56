// Spatial (single-frame) upscaling of a jittered render image: the classic baselines.
//
// Jitter-aware: the sample of render pixel p sits at p + 0.5 + jitter (render pixels), not at the
// pixel centre, and display pixel o's centre is at (o + 0.5) / scale. Each output value is the
// separable, normalised kernel-weighted sum of the samples around that position, reading past the
// image border as the edge sample (clamp to edge).
#pragma once

#include <string>

#include "sequence/image.h"

namespace swinup::eval {

enum class SpatialFilter { nearest, bilinear, catmull_rom, lanczos3 };

// "nearest", "bilinear", "bicubic" (Catmull-Rom), "lanczos3".
const char* spatial_filter_name(SpatialFilter filter);

// Upscale all channels of `render` to out_width x out_height. Throws std::invalid_argument on an
// empty image, a non-positive output size or non-finite jitter.
Image spatial_upscale(const Image& render, int out_width, int out_height, float jitter_x,
                      float jitter_y, SpatialFilter filter);

}  // namespace swinup::eval
