// The counters of one frame's repaired input pixels, in the order a GPU backend keeps them in its
// device buffer (swinup_input_statistics adds them up). A plain C++ header, so that tests and host
// code read the counter buffer by the names the kernels write it with.
#pragma once

namespace swinup {

enum FrameCount {
    kCountColor = 0, kCountDepth, kCountMotion,
    kCountReactiveNonfinite, kCountTransparencyNonfinite,
    kCountReactiveOutOfRange, kCountTransparencyOutOfRange,
    kFrameCounts
};

}  // namespace swinup
