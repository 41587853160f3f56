// The sizes and sub-pixel placement of one frame: what staging, the output pass and the CUDA
// frame parameters all describe. One struct, so that each backend fills it once per frame and
// hands it to every pass (StageCurrent, OutputCurrent and the CUDA FrameParams derive from it).
#pragma once

namespace swinup {

struct FrameGeometry {
    int width = 0, height = 0;                 // this frame's render size
    int display_width = 0, display_height = 0;
    float jitter_x = 0.0f, jitter_y = 0.0f;    // sample offset from the pixel centre, render pixels
    float scale_x = 1.0f, scale_y = 1.0f;      // display / render size, per axis
};

}  // namespace swinup
