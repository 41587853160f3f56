#include "eval/temporal_stability.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "eval/image_sampling.h"
#include "eval/motion.h"

namespace swinup::eval {

double SquaredErrorSum::rms() const { return count == 0 ? 0.0 : std::sqrt(sum / double(count)); }

std::vector<uint8_t> stable_pixel_mask(const SequenceInfo& info, const Frame& previous,
                                       const Frame& current, int index, const Image& motion) {
    const int wd = info.display_width, hd = info.display_height;
    const int w = info.render_width, h = info.render_height;
    std::vector<uint8_t> stable(size_t(wd) * hd, 0);
    if (index <= 0 || index >= info.frame_count) return stable;
    if (!info.reset.empty() && info.reset[index]) return stable;
    if (motion.width != wd || motion.height != hd) {
        throw std::invalid_argument("stable_pixel_mask: motion is not display-sized");
    }

    // Per render pixel: disoccluded, then "unsteady" = disoccluded or at a motion edge (3x3).
    const Image mv = render_motion(info, current, index);
    std::vector<uint8_t> disoccluded(size_t(w) * h, 0);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const float z = reverse_z(current.depth.at(x, y, 0), info.depth_inverted);
            const float px = float(x) + 0.5f + mv.at(x, y, 0);
            const float py = float(y) + 0.5f + mv.at(x, y, 1);
            if (px < 0.0f || py < 0.0f || px >= float(w) || py >= float(h))
                continue;  // off screen:
            // the display test below excludes it already.
            const float z_prev =
                reverse_z(previous.depth.at(int(px), int(py), 0), info.depth_inverted);
            const float relative = (z_prev - z) / std::max({z_prev, z, 1e-6f});
            disoccluded[size_t(y) * w + x] = relative > kDisocclusionTolerance;
        }
    }
    std::vector<uint8_t> unsteady(size_t(w) * h, 0);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            bool bad = false;
            for (int dy = -1; dy <= 1 && !bad; ++dy) {
                for (int dx = -1; dx <= 1 && !bad; ++dx) {
                    const int qx = std::clamp(x + dx, 0, w - 1), qy = std::clamp(y + dy, 0, h - 1);
                    bad = disoccluded[size_t(qy) * w + qx] ||
                          std::abs(mv.at(qx, qy, 0) - mv.at(x, y, 0)) > kMotionEdgeTolerance ||
                          std::abs(mv.at(qx, qy, 1) - mv.at(x, y, 1)) > kMotionEdgeTolerance;
                }
            }
            unsteady[size_t(y) * w + x] = bad;
        }
    }

    const float sx = float(wd) / float(w), sy = float(hd) / float(h);
    for (int y = 0; y < hd; ++y) {
        const int ry = std::min(int((float(y) + 0.5f) / sy), h - 1);
        for (int x = 0; x < wd; ++x) {
            const int rx = std::min(int((float(x) + 0.5f) / sx), w - 1);
            const float px = float(x) + 0.5f + motion.at(x, y, 0);
            const float py = float(y) + 0.5f + motion.at(x, y, 1);
            const bool inside = std::isfinite(px) && std::isfinite(py) && px >= 0.5f &&
                                py >= 0.5f && px <= float(wd) - 0.5f && py <= float(hd) - 0.5f;
            stable[size_t(y) * wd + x] = inside && !unsteady[size_t(ry) * w + rx];
        }
    }
    return stable;
}

SquaredErrorSum temporal_change_error(const Image& output_previous, const Image& output_current,
                                      const Image& truth_previous, const Image& truth_current,
                                      const Image& motion, const std::vector<uint8_t>& stable) {
    const int w = output_current.width, h = output_current.height;
    for (const Image* image : {&output_previous, &truth_previous, &truth_current, &motion}) {
        if (image->width != w || image->height != h) {
            throw std::invalid_argument("temporal_change_error: image sizes differ");
        }
    }
    if (stable.size() != size_t(w) * h) {
        throw std::invalid_argument("temporal_change_error: mask size differs from the images");
    }
    SquaredErrorSum result;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            if (!stable[size_t(y) * w + x]) continue;
            const float px = float(x) + 0.5f + motion.at(x, y, 0);
            const float py = float(y) + 0.5f + motion.at(x, y, 1);
            for (int c = 0; c < 3; ++c) {
                const double d_out = double(output_current.at(x, y, c)) -
                                     double(sample_bilinear(output_previous, px, py, c));
                const double d_gt =
                    double(truth_current.at(x, y, c)) - double(sample_bilinear(truth_previous, px, py, c));
                result.sum += (d_out - d_gt) * (d_out - d_gt);
                ++result.count;
            }
        }
    }
    return result;
}

}  // namespace swinup::eval
