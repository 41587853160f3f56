// The sizes and sub-pixel placement of one frame: what staging, the output pass and the CUDA
// frame parameters all describe. One struct, so that each backend fills it once per frame and
// hands it to every pass (StageCurrent, OutputCurrent and the CUDA FrameParams derive from it).
#pragma once

#include "numeric/exact_math.h"

namespace swinup {

struct FrameGeometry {
    int width = 0, height = 0;                 // this frame's render size
    int display_width = 0, display_height = 0;
    float jitter_x = 0.0f, jitter_y = 0.0f;    // sample offset from the pixel centre, render pixels
    float scale_x = 1.0f, scale_y = 1.0f;      // display / render size, per axis
};

// A frame's geometry from its sizes and jitter: the scale is display / render by the exact
// division (docs/model-spec.md), so every backend and test derives the same scale.
inline FrameGeometry frame_geometry(int width, int height, int display_width, int display_height,
                                    float jitter_x, float jitter_y) {
    return {width, height, display_width, display_height, jitter_x, jitter_y,
            exact::div(static_cast<float>(display_width), static_cast<float>(width)),
            exact::div(static_cast<float>(display_height), static_cast<float>(height))};
}

}  // namespace swinup
