// Turns a frame's input resources into the sanitised f32 planes staging reads (docs/model-spec.md,
// "Staging": exposure, NaN/Inf replacement, LDR clamp, reverse-Z, motion in render pixels).
#pragma once

#include <cstdint>
#include <vector>

#include "frame/frame_geometry.h"
#include "swinup/swinup.h"

namespace swinup::cpu {

struct InputSettings : FrameGeometry {
    float exposure = 1.0f, pre_exposure = 1.0f; // colour is multiplied by exposure / pre_exposure
    bool ldr = true;
    bool depth_inverted = false;
    bool mv_display_res = false;
    // Added to every motion vector (render pixels): cancels the jitter difference when the
    // engine's vectors include it (SWINUP_FLAG_MV_JITTERED), else 0.
    float motion_offset_x = 0.0f, motion_offset_y = 0.0f;
};

struct ReplacedCounts {
    uint64_t color = 0, depth = 0, motion = 0;
};

// Reads colour, depth and motion into color (w*h*3), z (w*h) and motion (w*h*2). row_counts must
// hold 3 * height entries (per-row counts, summed in order so the result is deterministic).
ReplacedCounts read_input_planes(const swinup_dispatch_desc& desc, const InputSettings& settings,
                                 float* color, float* z, float* motion,
                                 std::vector<uint32_t>& row_counts);

// The exposure to use when SWINUP_FLAG_AUTO_EXPOSURE is set: 0.18 / 2^mean(log2(max(L, 2^-14)))
// with L the Rec.709 luminance of colour / pre_exposure (NaN/Inf pixels count as black), clamped
// to [2^-20, 2^20]. row_sums must hold `height` entries.
float auto_exposure(const swinup_dispatch_desc& desc, int width, int height, float pre_exposure,
                    std::vector<double>& row_sums);

}  // namespace swinup::cpu
