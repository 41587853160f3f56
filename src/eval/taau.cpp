#include "eval/taau.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "eval/color_space.h"
#include "eval/image_sampling.h"
#include "eval/motion.h"
#include "eval/resample_kernels.h"

namespace swinup::eval {

TaauUpscaler::TaauUpscaler(const TaauSettings& settings) : settings_(settings) {}

namespace {

// Per render pixel inputs of one frame, prepared once.
struct RenderFrame {
    int width = 0, height = 0;
    std::vector<Rgb> color;       // exposure applied, finite, >= 0 (LDR: <= 1)
    std::vector<float> depth;     // reverse-Z
    std::vector<float> motion_x;  // dilated motion, render px, current -> previous
    std::vector<float> motion_y;
    std::vector<float> dilated_depth;
    std::vector<float> own_motion_x;  // the pixel's own motion, render px (the disocclusion test)
    std::vector<float> own_motion_y;
    std::vector<float> reactive;      // [0, 1]; all 0 without masks
    std::vector<float> transparency;  // [0, 1]; all 0 without masks
};

// A staged mask value: clamped to [0, 1], NaN as 0 (as the library stages them).
float mask_value(float v) { return v > 0.0f ? std::min(v, 1.0f) : 0.0f; }

RenderFrame prepare(const UpscaleInput& in) {
    const Frame& f = in.frame;
    RenderFrame r;
    r.width = f.color.width;
    r.height = f.color.height;
    const size_t n = size_t(r.width) * r.height;
    r.color.resize(n);
    r.depth.resize(n);
    r.reactive.assign(n, 0.0f);
    r.transparency.assign(n, 0.0f);
    if (!f.masks.empty()) {
        for (size_t i = 0; i < n; ++i) {
            r.reactive[i] = mask_value(f.masks.data[i * 2]);
            r.transparency[i] = mask_value(f.masks.data[i * 2 + 1]);
        }
    }
    for (size_t i = 0; i < n; ++i) {
        const float* c = f.color.data.data() + i * f.color.channels;
        float v[3];
        for (int k = 0; k < 3; ++k) {
            float x = c[k] * in.exposure;
            if (!std::isfinite(x) || x < 0.0f) x = 0.0f;
            v[k] = in.info.hdr ? x : std::min(x, 1.0f);
        }
        r.color[i] = {v[0], v[1], v[2]};
        r.depth[i] = reverse_z(f.depth.data[i * f.depth.channels], in.info.depth_inverted);
    }
    // Dilation: the motion of the nearest (largest reverse-Z) pixel of the 3x3 neighbourhood, ties
    // to the first in row-major order.
    const Image mv = render_motion(in.info, f, in.index);
    r.motion_x.resize(n);
    r.motion_y.resize(n);
    r.dilated_depth.resize(n);
    r.own_motion_x.resize(n);
    r.own_motion_y.resize(n);
    for (int y = 0; y < r.height; ++y) {
        for (int x = 0; x < r.width; ++x) {
            int best_x = x, best_y = y;
            float best_z = -1.0f;
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) {
                    const int qx = std::clamp(x + dx, 0, r.width - 1);
                    const int qy = std::clamp(y + dy, 0, r.height - 1);
                    const float z = r.depth[size_t(qy) * r.width + qx];
                    if (z > best_z) {
                        best_z = z;
                        best_x = qx;
                        best_y = qy;
                    }
                }
            }
            const size_t i = size_t(y) * r.width + x;
            r.motion_x[i] = mv.at(best_x, best_y, 0);
            r.motion_y[i] = mv.at(best_x, best_y, 1);
            r.dilated_depth[i] = best_z;
            r.own_motion_x[i] = mv.at(x, y, 0);
            r.own_motion_y[i] = mv.at(x, y, 1);
        }
    }
    return r;
}

// Catmull-Rom sample of channels 0..2 of `image` at continuous position (px, py), clamped to the
// range of the 4 central taps so that it never rings past its neighbours.
Rgb catmull_rom_sample(const Image& image, float px, float py) {
    const float fx = px - 0.5f, fy = py - 0.5f;
    const int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
    const float tx = fx - float(x0), ty = fy - float(y0);
    float wx[4], wy[4];
    for (int k = 0; k < 4; ++k) {
        wx[k] = catmull_rom_kernel(tx - float(k - 1));
        wy[k] = catmull_rom_kernel(ty - float(k - 1));
    }
    float sum[3] = {0, 0, 0};
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    for (int j = 0; j < 4; ++j) {
        const int sy = std::clamp(y0 + j - 1, 0, image.height - 1);
        for (int i = 0; i < 4; ++i) {
            const int sx = std::clamp(x0 + i - 1, 0, image.width - 1);
            const float* p = image.pixel(sx, sy);
            const float w = wx[i] * wy[j];
            for (int c = 0; c < 3; ++c) sum[c] += w * p[c];
            if ((i == 1 || i == 2) && (j == 1 || j == 2)) {
                for (int c = 0; c < 3; ++c) {
                    lo[c] = std::min(lo[c], p[c]);
                    hi[c] = std::max(hi[c], p[c]);
                }
            }
        }
    }
    return {std::clamp(sum[0], lo[0], hi[0]), std::clamp(sum[1], lo[1], hi[1]),
            std::clamp(sum[2], lo[2], hi[2])};
}

float lerp(float a, float b, float t) { return a + (b - a) * t; }

// History layout: R, G, B (exposure-applied linear), accumulated weight, box min (Y, Co, Cg), box
// max (Y, Co, Cg), the mask max(reactive, transparency) of the frame that wrote the box.
constexpr int kHistoryChannels = 11;

// Clip point p into the box [lo, hi] along the line to the box centre (Karis / Salvi): keeps the
// history's hue where a per-axis clamp would shift it.
YCoCg clip_to_box(const YCoCg& p, const YCoCg& lo, const YCoCg& hi) {
    const float cy = 0.5f * (lo.y + hi.y), cco = 0.5f * (lo.co + hi.co),
                ccg = 0.5f * (lo.cg + hi.cg);
    const float ey = 0.5f * (hi.y - lo.y) + 1e-6f, eco = 0.5f * (hi.co - lo.co) + 1e-6f,
                ecg = 0.5f * (hi.cg - lo.cg) + 1e-6f;
    const float vy = p.y - cy, vco = p.co - cco, vcg = p.cg - ccg;
    const float ratio = std::max({std::abs(vy) / ey, std::abs(vco) / eco, std::abs(vcg) / ecg});
    if (ratio <= 1.0f) return p;
    return {cy + vy / ratio, cco + vco / ratio, ccg + vcg / ratio};
}

}  // namespace

Image TaauUpscaler::upscale(const UpscaleInput& in) {
    const SequenceInfo& info = in.info;
    const int wd = info.display_width, hd = info.display_height;
    if (in.frame.color.width <= 0 || in.frame.color.height <= 0 || in.frame.color.channels < 3) {
        throw std::invalid_argument("taau: colour must be a non-empty RGB(A) image");
    }
    if (in.frame.depth.width != in.frame.color.width ||
        in.frame.depth.height != in.frame.color.height ||
        in.frame.mv.width != in.frame.color.width || in.frame.mv.height != in.frame.color.height) {
        throw std::invalid_argument("taau: depth and motion must have the colour's size");
    }
    if (!in.frame.masks.empty() &&
        (in.frame.masks.width != in.frame.color.width ||
         in.frame.masks.height != in.frame.color.height || in.frame.masks.channels != 2)) {
        throw std::invalid_argument("taau: masks must have the colour's size and 2 channels");
    }
    if (!(in.exposure > 0.0f) || !std::isfinite(in.exposure)) {
        throw std::invalid_argument("taau: exposure must be positive and finite");
    }
    const RenderFrame r = prepare(in);
    const int w = r.width, h = r.height;
    const float sx = float(wd) / float(w), sy = float(hd) / float(h);
    const float jx = in.jitter_x, jy = in.jitter_y;
    const bool have_history = !in.reset && history_.width == wd && history_.height == hd &&
                              previous_depth_.width == w && previous_depth_.height == h;

    // Render-res history validity: 0 = drop (off screen or disoccluded), 1 = keep. The dilated
    // depth test (FSR 2's): the nearest depth of the 3x3 neighbourhood, moved along its motion, is
    // not farther than the previous depth there, so a foreground edge keeps its history. And,
    // where the dilation gave the pixel a motion not its own (more than own_test_motion_px
    // apart), the pixel's own test: its own depth, moved along its own motion, is not farther than
    // the previous depth there. Without it, a background pixel that a moving object uncovered
    // right beside the object takes the object's depth and motion in the dilation, finds the
    // object where that motion points and keeps the object's history: a ghost trail
    // (docs/journal/2026-12-07-ghost-trails-cause.md). Where the motions agree (a thin, aliased
    // feature over a background that moves with it) the history would be fetched from the same
    // place either way, and a jittered sample that hit the feature last frame must not drop it.
    std::vector<uint8_t> keep(size_t(w) * h, 0);
    auto visible_before = [&](float px, float py, float z) {
        if (!(px >= 0.0f && py >= 0.0f && px < float(w) && py < float(h))) return false;
        const float z_prev = previous_depth_.at(int(px), int(py), 0);
        return (z_prev - z) / std::max({z_prev, z, 1e-6f}) <= settings_.depth_tolerance;
    };
    if (have_history) {
        const float gate = settings_.own_test_motion_px;
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                const size_t i = size_t(y) * w + x;
                const float cx = float(x) + 0.5f, cy = float(y) + 0.5f;
                const float dx = r.motion_x[i] - r.own_motion_x[i], dy = r.motion_y[i] - r.own_motion_y[i];
                const bool borrowed = settings_.own_depth_test && dx * dx + dy * dy > gate * gate;
                keep[i] = visible_before(cx + r.motion_x[i], cy + r.motion_y[i], r.dilated_depth[i]) &&
                          (!borrowed || visible_before(cx + r.own_motion_x[i], cy + r.own_motion_y[i], r.depth[i]));
            }
        }
    }

    const TaauSettings& s = settings_;
    const float inv_two_wide2 = 1.0f / (2.0f * s.sigma_wide * s.sigma_wide);
    // Weight of a sample at distance d (display px, one axis) from the pixel centre: 1 inside the
    // pixel, 0 outside, with a linear ramp of half-width box_softness across the pixel border.
    const float softness = std::max(s.box_softness, 1e-3f);
    auto soft_box = [softness](float d) {
        return std::clamp((0.5f + softness - std::abs(d)) / (2.0f * softness), 0.0f, 1.0f);
    };
    Image next(wd, hd, kHistoryChannels);
    Image out(wd, hd, 3);
    tbb::parallel_for(tbb::blocked_range<int>(0, hd), [&](const tbb::blocked_range<int>& rows) {
        for (int oy = rows.begin(); oy < rows.end(); ++oy) {
            for (int ox = 0; ox < wd; ++ox) {
                const float ux = (float(ox) + 0.5f) / sx, uy = (float(oy) + 0.5f) / sy;
                const int nx = std::min(int(ux), w - 1), ny = std::min(int(uy), h - 1);
                const size_t ni = size_t(ny) * w + nx;
                const float mdx = r.motion_x[ni] * sx, mdy = r.motion_y[ni] * sy;

                const float reactive = r.reactive[ni], transparency = r.transparency[ni];
                const float speed = std::sqrt(mdx * mdx + mdy * mdy);
                const float moving = std::clamp(speed / s.moving_speed, 0.0f, 1.0f);

                // History, its accumulated weight and its remembered neighbourhood box.
                float accumulated = 0.0f;
                Rgb history;
                YCoCg remembered_lo, remembered_hi;
                float remembered_mask = 0.0f;
                if (have_history && keep[ni]) {
                    const float hx = float(ox) + 0.5f + mdx, hy = float(oy) + 0.5f + mdy;
                    if (hx >= 0.0f && hy >= 0.0f && hx <= float(wd) && hy <= float(hd)) {
                        history = catmull_rom_sample(history_, hx, hy);
                        accumulated = std::max(sample_bilinear(history_, hx, hy, 3), 0.0f);
                        const float* box =
                            history_.pixel(std::min(int(hx), wd - 1), std::min(int(hy), hd - 1));
                        remembered_lo = {box[4], box[5], box[6]};
                        remembered_hi = {box[7], box[8], box[9]};
                        remembered_mask = box[10];
                    }
                }

                // Current reconstruction and neighbourhood statistics from the 3x3 samples. Two
                // estimates: a Gaussian of the samples (a smooth spatial upscale, for pixels with
                // no history) and a soft box of the samples that landed inside this display pixel
                // (what accumulation averages: the truth is the mean over the pixel's area).
                Rgb wide_sum, box_sum;
                float wide_weight = 0.0f, box_weight = 0.0f;
                YCoCg lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f}, mean, square;
                for (int dy = -1; dy <= 1; ++dy) {
                    const int qy = std::clamp(ny + dy, 0, h - 1);
                    const float ddy = (float(qy) + 0.5f + jy - uy) * sy;
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int qx = std::clamp(nx + dx, 0, w - 1);
                        const float ddx = (float(qx) + 0.5f + jx - ux) * sx;
                        const Rgb& c = r.color[size_t(qy) * w + qx];
                        // The smooth estimate only matters without history or when moving; skip
                        // its exp otherwise.
                        const float wg = accumulated > 0.0f && moving == 0.0f
                                             ? 0.0f
                                             : std::exp(-(ddx * ddx + ddy * ddy) * inv_two_wide2);
                        wide_sum = {wide_sum.r + wg * c.r, wide_sum.g + wg * c.g,
                                    wide_sum.b + wg * c.b};
                        wide_weight += wg;
                        const float wb = soft_box(ddx) * soft_box(ddy);
                        box_sum = {box_sum.r + wb * c.r, box_sum.g + wb * c.g,
                                   box_sum.b + wb * c.b};
                        box_weight += wb;
                        const YCoCg v = rgb_to_ycocg(c);
                        lo = {std::min(lo.y, v.y), std::min(lo.co, v.co), std::min(lo.cg, v.cg)};
                        hi = {std::max(hi.y, v.y), std::max(hi.co, v.co), std::max(hi.cg, v.cg)};
                        mean = {mean.y + v.y, mean.co + v.co, mean.cg + v.cg};
                        square = {square.y + v.y * v.y, square.co + v.co * v.co,
                                  square.cg + v.cg * v.cg};
                    }
                }
                const Rgb wide = wide_weight > 1e-20f
                                     ? Rgb{wide_sum.r / wide_weight, wide_sum.g / wide_weight,
                                           wide_sum.b / wide_weight}
                                     : r.color[ni];
                const Rgb current = box_weight > 1e-20f
                                        ? Rgb{box_sum.r / box_weight, box_sum.g / box_weight,
                                              box_sum.b / box_weight}
                                        : wide;
                // Moving pixels always take some of the current frame, even when no sample fell in
                // their box: resampled history alone goes stale and speckles.
                const float nearest_weight =
                    std::max(std::min(box_weight, 1.0f), s.moving_current_floor * moving);

                // The clipping box of this frame: min/max of the nine samples intersected with
                // mean +- gamma std (gamma wider for still pixels).
                const float gamma = lerp(s.gamma_still, s.gamma_moving, moving);
                const float inv9 = 1.0f / 9.0f;
                mean = {mean.y * inv9, mean.co * inv9, mean.cg * inv9};
                auto stddev = [&](float sq, float m) {
                    return std::sqrt(std::max(sq * inv9 - m * m, 0.0f));
                };
                const YCoCg sd{stddev(square.y, mean.y), stddev(square.co, mean.co),
                               stddev(square.cg, mean.cg)};
                YCoCg box_lo{std::max(lo.y, mean.y - gamma * sd.y),
                             std::max(lo.co, mean.co - gamma * sd.co),
                             std::max(lo.cg, mean.cg - gamma * sd.cg)};
                YCoCg box_hi{std::min(hi.y, mean.y + gamma * sd.y),
                             std::min(hi.co, mean.co + gamma * sd.co),
                             std::min(hi.cg, mean.cg + gamma * sd.cg)};

                // No history: the smooth estimate, trusted only a little so that samples landing in
                // the pixel soon replace it.
                Rgb result = wide;
                float new_accumulated = s.wide_confidence;
                if (accumulated > 0.0f) {
                    // The box remembers the boxes of the last frames (the role of FSR 2's locks): a
                    // thin line that only some jitter phases hit stays inside the box on the frames
                    // that miss it. The memory fades over time, faster on moving pixels.
                    // Transparency & composition: no lock where the surface is not what the
                    // motion vectors describe; and none from a box that was remembered where a
                    // mask was set (a particle's colours must not widen the box after it left).
                    const float memory = lerp(s.box_memory_still, s.box_memory_moving, moving) *
                                         (1.0f - transparency) * (1.0f - remembered_mask);
                    box_lo = {std::min(box_lo.y, lerp(box_lo.y, remembered_lo.y, memory)),
                              std::min(box_lo.co, lerp(box_lo.co, remembered_lo.co, memory)),
                              std::min(box_lo.cg, lerp(box_lo.cg, remembered_lo.cg, memory))};
                    box_hi = {std::max(box_hi.y, lerp(box_hi.y, remembered_hi.y, memory)),
                              std::max(box_hi.co, lerp(box_hi.co, remembered_hi.co, memory)),
                              std::max(box_hi.cg, lerp(box_hi.cg, remembered_hi.cg, memory))};
                    history = ycocg_to_rgb(clip_to_box(rgb_to_ycocg(history), box_lo, box_hi));
                    history = {std::max(history.r, 0.0f), std::max(history.g, 0.0f),
                               std::max(history.b, 0.0f)};

                    const float cap =
                        s.max_accumulation - transparency * (s.max_accumulation - 1.0f);
                    const float total = std::min(accumulated + nearest_weight, cap);
                    float alpha = std::clamp(nearest_weight / std::max(total, 1e-6f), 0.0f, 1.0f);
                    // Reactive: the current frame replaces the history in proportion.
                    alpha += reactive * (1.0f - alpha);
                    float wc = alpha, wh = 1.0f - alpha;
                    if (s.luminance_weighting) {
                        wc /= 1.0f + luma709(current);
                        wh /= 1.0f + luma709(history);
                    }
                    const float norm = 1.0f / std::max(wc + wh, 1e-20f);
                    result = {(wc * current.r + wh * history.r) * norm,
                              (wc * current.g + wh * history.g) * norm,
                              (wc * current.b + wh * history.b) * norm};
                    new_accumulated = total + reactive * (nearest_weight - total);
                }
                float* hp = next.pixel(ox, oy);
                hp[0] = result.r;
                hp[1] = result.g;
                hp[2] = result.b;
                hp[3] = new_accumulated;
                hp[4] = box_lo.y;
                hp[5] = box_lo.co;
                hp[6] = box_lo.cg;
                hp[7] = box_hi.y;
                hp[8] = box_hi.co;
                hp[9] = box_hi.cg;
                hp[10] = std::max(reactive, transparency);
                float* op = out.pixel(ox, oy);
                op[0] = result.r / in.exposure;
                op[1] = result.g / in.exposure;
                op[2] = result.b / in.exposure;
            }
        }
    });
    history_ = std::move(next);
    previous_depth_ = Image(w, h, 1);
    previous_depth_.data = r.depth;
    keep_ = std::move(keep);
    return out;
}

}  // namespace swinup::eval
