// A test sequence's description and blank frames: its sizes and frame count, and per frame no jitter, exposure 1
// and no reset; each test then sets what it is about.
#pragma once

#include <cstddef>

#include "sequence/sequence.h"

namespace swinup::test {

inline SequenceInfo sequence_info(int render_w, int render_h, int display_w, int display_h, int frames) {
    SequenceInfo info;
    info.render_width = render_w;
    info.render_height = render_h;
    info.display_width = display_w;
    info.display_height = display_h;
    info.frame_count = frames;
    info.jitter_x.assign(static_cast<size_t>(frames), 0.0f);
    info.jitter_y.assign(static_cast<size_t>(frames), 0.0f);
    info.exposure.assign(static_cast<size_t>(frames), 1.0f);
    info.reset.assign(static_cast<size_t>(frames), 0);
    return info;
}

// A render frame of width x height: colour 1 (alpha 1), depth 0.5 and no motion, for a test to
// paint what it is about.
inline Frame blank_frame(int width, int height) {
    Frame f;
    f.color = Image(width, height, 4, 1.0f);
    f.depth = Image(width, height, 1, 0.5f);
    f.mv = Image(width, height, 2, 0.0f);
    return f;
}

}  // namespace swinup::test
