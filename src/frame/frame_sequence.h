// The frame-to-frame bookkeeping of a context, one definition for the CPU and CUDA backends: what a
// dispatch decides before it runs (FrameSequence::begin: sizes, whether the previous frame's state
// is read, which of the double-buffered state slots it reads and which it writes, the exposure's
// source, the motion vectors' jitter cancellation) and what it records once it succeeded
// (FrameSequence::commit). A frame that fails is never committed, so it leaves the state exactly as
// it was: the next frame reads the last successful one's slot again, and writes the other slot.
// (The frame counter that drives the window-shift parity is the context's: api/context.cpp counts
// successful dispatches and hands the count to the backend.)
#pragma once

#include "frame/frame_geometry.h"
#include "swinup/swinup.h"

namespace swinup {

// Where a frame's exposure comes from (docs/model-spec.md, "Staging").
struct ExposureChoice {
    bool automatic = false;                // SWINUP_FLAG_AUTO_EXPOSURE: measured from the colour
    const void* device_texture = nullptr;  // a 1x1 R32F in device memory, read by the GPU
    float value = 1.0f;  // otherwise: exposure_value (0 read as 1), or the host texture's value
    float pre_exposure = 1.0f;  // the dispatch's pre_exposure, 0 read as 1
};

// What a dispatch decides before it runs.
struct FrameSetup {
    FrameGeometry geometry;              // this frame's sizes, jitter and scale
    int padded_width = 0, padded_height = 0;  // the network's grid (pad_to_grid)
    bool history_valid = false;          // the previous frame's state is read (no reset, one exists)
    int current = 0;                     // the state slot the frame reads: the last successful frame
    int next = 1;                        // the slot it writes, which commit() makes current
    int previous_width = 0, previous_height = 0;  // the render size of the frame in `current`
    // Added to every motion vector (render pixels): jitter_prev - jitter when the engine's vectors
    // include the jitter (SWINUP_FLAG_MV_JITTERED) and there is history, else 0.
    float motion_offset_x = 0.0f, motion_offset_y = 0.0f;
    ExposureChoice exposure;
    bool ldr = true;                     // no SWINUP_FLAG_HDR: colour clamped to [0, 1]
    bool srgb = false;                   // SWINUP_FLAG_SRGB_INPUT: colour decoded to linear first
    bool debug_view = false;             // SWINUP_FLAG_DEBUG_VIEW: the output shows frame/debug_view.h's views
    bool depth_inverted = false;         // SWINUP_FLAG_DEPTH_INVERTED
    bool mv_display_res = false;         // SWINUP_FLAG_MV_DISPLAY_RES
};

class FrameSequence {
public:
    // The set-up of frame `frame` of a context created with `context`; reads the exposure texture
    // when it is in host memory. Changes nothing.
    FrameSetup begin(const swinup_context_desc& context, const swinup_dispatch_desc& frame) const;
    // Records `frame` (begin()'s result) as the last successful frame: its `next` slot becomes
    // current, its size and jitter the previous ones. Call only after the frame succeeded.
    void commit(const FrameSetup& frame);

    // The slot holding the last successful frame's state (what the next frame reads).
    int current() const { return current_; }
    // False until a frame succeeds (a reset frame makes begin() ignore the history, and commits).
    bool valid() const { return valid_; }

private:
    int current_ = 0;
    bool valid_ = false;
    int width_ = 0, height_ = 0;             // render size of the frame in `current_`
    float jitter_x_ = 0.0f, jitter_y_ = 0.0f;  // its jitter (the MV jitter cancellation)
};

}  // namespace swinup
