#include "eval/motion.h"

#include <algorithm>
#include <cmath>

namespace swinup::eval {

float reverse_z(float device_depth, bool depth_inverted) {
    if (!std::isfinite(device_depth)) return 0.0f;
    return depth_inverted ? device_depth : 1.0f - device_depth;
}

namespace {

// The jitter difference (prev - cur) that jittered MVs include, in render pixels.
void jitter_difference(const SequenceInfo& info, int index, float* dx, float* dy) {
    *dx = 0.0f;
    *dy = 0.0f;
    if (!info.mv_jittered || index <= 0 || index >= info.frame_count) return;
    *dx = info.jitter_x[index - 1] - info.jitter_x[index];
    *dy = info.jitter_y[index - 1] - info.jitter_y[index];
}

float finite_or_zero(float v) { return std::isfinite(v) ? v : 0.0f; }

}  // namespace

Image render_motion(const SequenceInfo& info, const Frame& frame, int index) {
    float dx, dy;
    jitter_difference(info, index, &dx, &dy);
    Image out(frame.mv.width, frame.mv.height, 2);
    const size_t pixels = size_t(out.width) * out.height;
    for (size_t i = 0; i < pixels; ++i) {
        out.data[i * 2 + 0] = finite_or_zero(frame.mv.data[i * frame.mv.channels + 0]) - dx;
        out.data[i * 2 + 1] = finite_or_zero(frame.mv.data[i * frame.mv.channels + 1]) - dy;
    }
    return out;
}

Image display_motion(const SequenceInfo& info, const Frame& frame, int index) {
    const int wd = info.display_width, hd = info.display_height;
    const float sx = float(wd) / float(info.render_width);
    const float sy = float(hd) / float(info.render_height);
    Image out(wd, hd, 2);
    if (!frame.mv_display.empty()) {
        float dx, dy;
        jitter_difference(info, index, &dx, &dy);
        const int ch = frame.mv_display.channels;
        for (size_t i = 0; i < size_t(wd) * hd; ++i) {
            out.data[i * 2 + 0] = finite_or_zero(frame.mv_display.data[i * ch + 0]) - dx * sx;
            out.data[i * 2 + 1] = finite_or_zero(frame.mv_display.data[i * ch + 1]) - dy * sy;
        }
        return out;
    }
    const Image mv = render_motion(info, frame, index);
    for (int y = 0; y < hd; ++y) {
        const int ry = std::min(int((float(y) + 0.5f) / sy), mv.height - 1);
        for (int x = 0; x < wd; ++x) {
            const int rx = std::min(int((float(x) + 0.5f) / sx), mv.width - 1);
            out.at(x, y, 0) = mv.at(rx, ry, 0) * sx;
            out.at(x, y, 1) = mv.at(rx, ry, 1) * sy;
        }
    }
    return out;
}

}  // namespace swinup::eval
