// Adding one frame's repair counts to a backend's InputStatistics (swinup_input_statistics). Each
// backend counts on its own side (the CPU in ReplacedCounts, the GPU backends in a small device
// buffer read back after the frame) and adds them here, so the mapping from counts to the C API's
// fields is written once.
#pragma once

#include "api/backend.h"
#include "frame/mask_pixel.h"

namespace swinup {

// Adds a frame: colour and motion pixels with NaN/Inf, depth values with NaN/Inf, and per mask
// (indexed kReactiveMask, kTransparencyMask) its pixels with NaN/Inf and with finite values
// outside [0, 1]: mask_nonfinite and mask_out_of_range point at kMasks counts each.
template <class Count>
void add_frame_counts(InputStatistics& statistics, Count color_pixels, Count depth, Count motion_pixels,
                      const Count* mask_nonfinite, const Count* mask_out_of_range) {
    statistics.frames += 1;
    statistics.color_nonfinite += color_pixels;
    statistics.depth_nonfinite += depth;
    statistics.motion_nonfinite += motion_pixels;
    statistics.reactive_nonfinite += mask_nonfinite[kReactiveMask];
    statistics.transparency_nonfinite += mask_nonfinite[kTransparencyMask];
    statistics.reactive_out_of_range += mask_out_of_range[kReactiveMask];
    statistics.transparency_out_of_range += mask_out_of_range[kTransparencyMask];
}

}  // namespace swinup
