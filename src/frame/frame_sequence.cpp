#include "frame/frame_sequence.h"

#include "frame/exposure.h"
#include "model/model_spec.h"
#include "numeric/exact_math.h"

namespace swinup {

namespace {

ExposureChoice choose_exposure(const swinup_context_desc& context, const swinup_dispatch_desc& frame) {
    ExposureChoice e;
    e.pre_exposure = frame.pre_exposure == 0.0f ? 1.0f : frame.pre_exposure;
    if (context.flags & SWINUP_FLAG_AUTO_EXPOSURE) {
        e.automatic = true;
    } else if (frame.exposure.data != nullptr) {
        if (frame.exposure.memory == SWINUP_MEMORY_HOST) {
            e.value = read_exposure_texture(frame.exposure.data);
        } else {
            e.device_texture = frame.exposure.data;
        }
    } else {
        e.value = frame.exposure_value == 0.0f ? 1.0f : frame.exposure_value;
    }
    return e;
}

}  // namespace

FrameSetup FrameSequence::begin(const swinup_context_desc& context, const swinup_dispatch_desc& frame) const {
    FrameSetup s;
    s.geometry = frame_geometry(static_cast<int>(frame.render_width), static_cast<int>(frame.render_height),
                                static_cast<int>(context.display_width), static_cast<int>(context.display_height),
                                frame.jitter_x, frame.jitter_y);
    s.padded_width = pad_to_grid(s.geometry.width);
    s.padded_height = pad_to_grid(s.geometry.height);

    s.history_valid = valid_ && frame.reset == 0;
    s.current = current_;
    s.next = 1 - current_;
    s.previous_width = width_;
    s.previous_height = height_;
    if ((context.flags & SWINUP_FLAG_MV_JITTERED) && s.history_valid) {
        // A sample offset by j shows the scene shifted by -j, so vectors measured between
        // jittered images carry -(j_prev - j_cur): add it back.
        s.motion_offset_x = exact::sub(jitter_x_, frame.jitter_x);
        s.motion_offset_y = exact::sub(jitter_y_, frame.jitter_y);
    }
    s.exposure = choose_exposure(context, frame);
    s.ldr = (context.flags & SWINUP_FLAG_HDR) == 0;
    s.srgb = (context.flags & SWINUP_FLAG_SRGB_INPUT) != 0;
    s.debug_view = (context.flags & SWINUP_FLAG_DEBUG_VIEW) != 0;
    s.depth_inverted = (context.flags & SWINUP_FLAG_DEPTH_INVERTED) != 0;
    s.mv_display_res = (context.flags & SWINUP_FLAG_MV_DISPLAY_RES) != 0;
    return s;
}

void FrameSequence::commit(const FrameSetup& frame) {
    current_ = frame.next;
    valid_ = true;
    width_ = frame.geometry.width;
    height_ = frame.geometry.height;
    jitter_x_ = frame.geometry.jitter_x;
    jitter_y_ = frame.geometry.jitter_y;
}

}  // namespace swinup
