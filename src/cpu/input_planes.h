// Turns a frame's input resources into the sanitised f32 planes staging reads (docs/model-spec.md,
// "Staging": exposure, NaN/Inf replacement, LDR clamp, reverse-Z, motion in render pixels).
#pragma once

#include <cstdint>
#include <vector>

#include "frame/frame_sequence.h"
#include "swinup/swinup.h"

namespace swinup::cpu {

// What staging replaced or clamped in a frame's inputs.
struct ReplacedCounts {
    // NaN/Inf values, per component (a colour pixel with two bad channels counts 2).
    uint64_t color = 0, depth = 0, motion = 0;
    // The same in pixels (swinup_input_statistics; depth has one component: `depth`).
    uint64_t color_pixels = 0, motion_pixels = 0;
    // Mask pixels with NaN/Inf, and with finite values outside [0, 1] (kReactiveMask, kTransparencyMask).
    uint64_t mask_nonfinite[2] = {0, 0}, mask_out_of_range[2] = {0, 0};
};

// Per-row counters read_input_planes keeps (row_counts holds this many per row).
constexpr size_t kRowCounts = 9;

// Reads colour, depth and motion into color (w*h*3), z (w*h) and motion (w*h*2), the colour
// multiplied by exposure / frame.exposure.pre_exposure, and, when `masks` is not null, the
// dispatch's two masks into masks (w*h*2, (reactive, transparency) pairs, stage_mask()'s values,
// 0 for an absent one). row_counts must hold kRowCounts * height entries (per-row counts, summed
// in order so the result is deterministic).
ReplacedCounts read_input_planes(const swinup_dispatch_desc& desc, const FrameSetup& frame, float exposure,
                                 float* color, float* z, float* motion, float* masks,
                                 std::vector<uint32_t>& row_counts);

// The exposure to use when SWINUP_FLAG_AUTO_EXPOSURE is set (frame/exposure.h) of the colour of a
// width x height frame (sRGB-encoded when `srgb`). row_sums must hold `height` entries.
float auto_exposure(const swinup_dispatch_desc& desc, int width, int height, float pre_exposure, bool srgb,
                    std::vector<double>& row_sums);

}  // namespace swinup::cpu
