// Turns a frame's input resources into the sanitised f32 planes staging reads (docs/model-spec.md,
// "Staging": exposure, NaN/Inf replacement, LDR clamp, reverse-Z, motion in render pixels).
#pragma once

#include <cstdint>
#include <vector>

#include "frame/frame_sequence.h"
#include "swinup/swinup.h"

namespace swinup::cpu {

struct ReplacedCounts {
    uint64_t color = 0, depth = 0, motion = 0;
};

// Reads colour, depth and motion into color (w*h*3), z (w*h) and motion (w*h*2), the colour
// multiplied by exposure / frame.exposure.pre_exposure. row_counts must hold 3 * height entries
// (per-row counts, summed in order so the result is deterministic).
ReplacedCounts read_input_planes(const swinup_dispatch_desc& desc, const FrameSetup& frame, float exposure,
                                 float* color, float* z, float* motion, std::vector<uint32_t>& row_counts);

// The exposure to use when SWINUP_FLAG_AUTO_EXPOSURE is set (frame/exposure.h) of the colour of a
// width x height frame. row_sums must hold `height` entries.
float auto_exposure(const swinup_dispatch_desc& desc, int width, int height, float pre_exposure,
                    std::vector<double>& row_sums);

}  // namespace swinup::cpu
