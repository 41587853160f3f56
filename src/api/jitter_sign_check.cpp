#include "api/jitter_sign_check.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "frame/input_image.h"

namespace swinup {

namespace {

// The luminance the comparison uses: Rec. 709 luma of the colour, times the exposure, divided by the
// pre-exposure, then x / (1 + x) so that HDR highlights do not outweigh the rest. NaN: unusable.
void luminance(const swinup_dispatch_desc& d, const swinup_context_desc& context, std::vector<float>* out) {
    const InputImage im = input_image(d.color);
    const int w = static_cast<int>(d.render_width), h = static_cast<int>(d.render_height);
    float exposure = d.exposure_value == 0.0f ? 1.0f : d.exposure_value;
    if ((context.flags & SWINUP_FLAG_AUTO_EXPOSURE) != 0 || d.exposure.data != nullptr) exposure = 1.0f;
    const float pre = d.pre_exposure == 0.0f ? 1.0f : d.pre_exposure;
    const float scale = exposure / pre;
    out->resize(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float l = scale * (0.2126f * read_input(im, x, y, 0) + 0.7152f * read_input(im, x, y, 1) +
                                     0.0722f * read_input(im, x, y, 2));
            (*out)[static_cast<size_t>(y) * w + x] = std::isfinite(l) ? std::max(l, 0.0f) / (1.0f + std::max(l, 0.0f))
                                                                      : NAN;
        }
}

// `image` (w x h) at the continuous position (px, py) whose pixel centres are at i + 0.5; NaN when
// the 2x2 footprint leaves the image or holds an unusable value.
float bilinear(const std::vector<float>& image, int w, int h, float px, float py) {
    const float fx = px - 0.5f, fy = py - 0.5f;
    const float x0f = std::floor(fx), y0f = std::floor(fy);
    if (!(x0f >= 0.0f && y0f >= 0.0f && x0f + 1.0f < static_cast<float>(w) && y0f + 1.0f < static_cast<float>(h))) {
        return NAN;
    }
    const int x0 = static_cast<int>(x0f), y0 = static_cast<int>(y0f);
    const float ax = fx - x0f, ay = fy - y0f;
    const float* r0 = &image[static_cast<size_t>(y0) * w + x0];
    const float* r1 = r0 + w;
    return (1.0f - ay) * ((1.0f - ax) * r0[0] + ax * r0[1]) + ay * ((1.0f - ax) * r1[0] + ax * r1[1]);
}

// Motion vector of render pixel (x, y), render pixels (mv_scale applied; a display-resolution
// texture read at the display pixel under the render pixel's centre, divided by the scale).
void motion(const InputImage& mv, const swinup_dispatch_desc& d, bool display_res, float sx, float sy, int x, int y,
            float* mx, float* my) {
    int u = x, v = y;
    float divx = 1.0f, divy = 1.0f;
    if (display_res) {
        u = std::min(static_cast<int>((static_cast<float>(x) + 0.5f) * sx), mv.width - 1);
        v = std::min(static_cast<int>((static_cast<float>(y) + 0.5f) * sy), mv.height - 1);
        divx = sx;
        divy = sy;
    }
    *mx = read_input(mv, u, v, 0) * d.mv_scale_x / divx;
    *my = read_input(mv, u, v, 1) * d.mv_scale_y / divy;
}

}  // namespace

void JitterSignCheck::after_dispatch(const swinup_dispatch_desc& d, const swinup_context_desc& context,
                                     swinup_jitter_convention given, const Log& log) {
    if (done_) return;
    if (++frames_ > kJitterSignCheckMaxFrames || (context.flags & SWINUP_FLAG_MV_JITTERED) != 0) {
        done_ = true;  // nothing decided; the buffers go
        previous_ = {};
        current_ = {};
        return;
    }
    if (d.color.memory != SWINUP_MEMORY_HOST || d.motion_vectors.memory != SWINUP_MEMORY_HOST) {
        previous_.clear();  // this frame cannot be read: no pair with the next one either
        return;
    }
    const int w = static_cast<int>(d.render_width), h = static_cast<int>(d.render_height);
    luminance(d, context, &current_);

    const float step_x = d.jitter_x - previous_jitter_[0], step_y = d.jitter_y - previous_jitter_[1];
    const bool usable = !previous_.empty() && d.reset == 0 && w == previous_width_ && h == previous_height_ &&
                        (std::fabs(step_x) >= kJitterSignCheckMinStep || std::fabs(step_y) >= kJitterSignCheckMinStep);
    if (usable) {
        const InputImage mv = input_image(d.motion_vectors);
        const bool display_res = (context.flags & SWINUP_FLAG_MV_DISPLAY_RES) != 0;
        const float sx = static_cast<float>(context.display_width) / static_cast<float>(w);
        const float sy = static_cast<float>(context.display_height) / static_cast<float>(h);
        double given_sum = 0.0, reversed_sum = 0.0, still_sum = 0.0;
        uint64_t counted = 0;
        for (int y = 0; y < h; y += 2)
            for (int x = 0; x < w; x += 2) {
                const float here = current_[static_cast<size_t>(y) * w + x];
                float mx, my;
                motion(mv, d, display_res, sx, sy, x, y, &mx, &my);
                const float px = static_cast<float>(x) + 0.5f + mx, py = static_cast<float>(y) + 0.5f + my;
                const float as_given = bilinear(previous_, w, h, px + step_x, py + step_y);
                const float reversed = bilinear(previous_, w, h, px - step_x, py - step_y);
                const float still = bilinear(previous_, w, h, px, py);
                const float a = std::fabs(here - as_given), b = std::fabs(here - reversed), c = std::fabs(here - still);
                if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c)) continue;
                given_sum += a;
                reversed_sum += b;
                still_sum += c;
                ++counted;
            }
        if (counted >= 16) {
            error_given_ += given_sum;
            error_reversed_ += reversed_sum;
            error_no_step_ += still_sum;
            ++pairs_;
        }
    }
    std::swap(previous_, current_);
    previous_width_ = w;
    previous_height_ = h;
    previous_jitter_[0] = d.jitter_x;
    previous_jitter_[1] = d.jitter_y;

    if (pairs_ < kJitterSignCheckPairs) return;
    done_ = true;
    previous_ = {};
    current_ = {};
    if (error_given_ > 0.0 && error_reversed_ < kJitterSignCheckRatio * error_given_ &&
        error_reversed_ < kJitterSignCheckNoStepRatio * error_no_step_) {
        const bool fsr = given == SWINUP_JITTER_FSR_DLSS;
        log.warning(std::string("dispatch.jitter_x, dispatch.jitter_y: over the first ") +
                    std::to_string(kJitterSignCheckPairs) +
                    " frame pairs the colour matches the previous frame better with the jitter's sign reversed "
                    "(its difference is " + std::to_string(error_reversed_ / error_given_) +
                    " times that of the sign as given, " + std::to_string(error_reversed_ / error_no_step_) +
                    " times that of no jitter step): the projection and dispatch.jitter_convention (" +
                    (fsr ? "SWINUP_JITTER_FSR_DLSS" : "SWINUP_JITTER_SAMPLE_OFFSET") +
                    ") likely disagree. " +
                    (fsr ? "If the projection is translated by -2 jx / w in NDC x (swinup's convention), set "
                           "jitter_convention = SWINUP_JITTER_SAMPLE_OFFSET"
                         : "An engine with FSR 2/3 or DLSS jitter code (projection translated by +2 jx / w in NDC x) "
                           "sets jitter_convention = SWINUP_JITTER_FSR_DLSS") +
                    " (docs/integration.md, \"The jitter convention\") (said once per context)");
    }
}

}  // namespace swinup
