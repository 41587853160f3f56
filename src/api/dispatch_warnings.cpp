#include "api/dispatch_warnings.h"

#include <string>

namespace swinup {

void DispatchWarnings::after_dispatch(const swinup_dispatch_desc& d, const swinup_context_desc& context,
                                      const Log& log) {
    if (!exposure_warned_ && d.exposure.data != nullptr && (context.flags & SWINUP_FLAG_AUTO_EXPOSURE) != 0) {
        exposure_warned_ = true;
        log.warning("dispatch.exposure: an exposure texture was given, but the context has "
                    "SWINUP_FLAG_AUTO_EXPOSURE, so it is ignored (said once per context)");
    }
    if (d.reset != 0 || same_jitter_frames_ == 0 || d.jitter_x != last_jitter_[0] || d.jitter_y != last_jitter_[1]) {
        same_jitter_frames_ = 1;  // a reset starts a new sequence
    } else {
        ++same_jitter_frames_;
    }
    last_jitter_[0] = d.jitter_x;
    last_jitter_[1] = d.jitter_y;
    if (!jitter_warned_ && same_jitter_frames_ >= kSameJitterWarningFrames) {
        jitter_warned_ = true;
        log.warning("dispatch.jitter_x, dispatch.jitter_y: " + std::to_string(same_jitter_frames_) +
                    " dispatches in a row had the same jitter (" + std::to_string(d.jitter_x) + ", " +
                    std::to_string(d.jitter_y) + "); the upscaler gathers detail from sub-pixel offsets "
                    "that change every frame (swinup_get_jitter gives a sequence) (said once per context)");
    }
}

void DispatchWarnings::after_counts(const InputStatistics& counts, const Log& log) {
    const struct {
        const char* name;
        uint64_t pixels;
    } masks[2] = {{"reactive_mask", counts.reactive_out_of_range},
                  {"transparency_mask", counts.transparency_out_of_range}};
    for (int m = 0; m < 2; ++m) {
        if (mask_range_warned_[m] || masks[m].pixels == 0) continue;
        mask_range_warned_[m] = true;
        log.warning(std::string("dispatch.") + masks[m].name +
                    ": the device-memory mask held values outside [0, 1], clamped (pixels so far: " +
                    std::to_string(masks[m].pixels) +
                    "; a mask value is a fraction; swinup_context_get_input_statistics counts them) (said once per "
                    "context)");
    }
}

}  // namespace swinup
