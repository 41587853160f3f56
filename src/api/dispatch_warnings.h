// Warnings about dispatches that are valid but likely not what the caller meant, each given once
// per context through its log (api/log.h): an exposure texture the context ignores, and a jitter
// that does not change from frame to frame (a temporal upscaler gathers detail only from
// sub-pixel offsets that differ between frames; a missing jitter sequence is a common slip), and
// device-memory mask values outside [0, 1].
#pragma once

#include <cstdint>

#include "api/backend.h"
#include "api/log.h"
#include "swinup/swinup.h"

namespace swinup {

// Dispatches in a row with one jitter after which the context warns.
constexpr uint32_t kSameJitterWarningFrames = 8;

class DispatchWarnings {
public:
    // After a successful dispatch of `d` on a context created from `context`.
    void after_dispatch(const swinup_dispatch_desc& d, const swinup_context_desc& context, const Log& log);
    // After a successful dispatch, with the backend's counts known so far: a device-memory mask
    // with values outside [0, 1] (clamped by staging, never refused: the values cannot be read
    // before the frame runs) is named once per mask and context.
    void after_counts(const InputStatistics& counts, const Log& log);

private:
    bool exposure_warned_ = false;
    bool jitter_warned_ = false;
    bool mask_range_warned_[2] = {false, false};  // reactive, transparency
    uint32_t same_jitter_frames_ = 0;  // dispatches in a row with last_jitter_ (1 after the first)
    float last_jitter_[2] = {0.0f, 0.0f};
};

}  // namespace swinup
