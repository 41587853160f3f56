// swinup-history-weight-pictures: what the network decides about the history where moving
// objects uncover the background. Renders a built-in scene (with ground truth and the motion
// masks, render/motion_masks.h), runs the CPU backend on it frame by frame and, after each frame,
// reads the backend's own planes (CpuBackend::frame_planes): per render pixel the history weight
// alpha the output pass took from head output 7 (history_weight(), frame/output_pixel.h), and per
// display pixel the share of the reprojected history in the output, 1 - current_share(alpha,
// weight sum): the kernel's weight sum over the 3x3 jittered samples caps the current frame's
// share, so history stays where no sample landed near the pixel whatever alpha says.
//
// Prints, per frame and pooled over the frames after the first, the mean alpha and history share
// over the disoccluded pixels, the moving-object pixels and the rest. And whether the history is
// reprojected right on the moving objects: the previous frame's ground truth resampled as the
// output pass resamples the history (Lanczos-3 at o + mv(n) s, n's dilated motion, f16), and the
// first frame's ground truth resampled so frame after frame (a history that never takes a new
// sample), each against this frame's ground truth over the moving objects' pixels that are not
// disoccluded. Writes a picture of the
// last frame (crop around the most disoccluded area): output | ground truth | alpha | history
// share | masks (red: disoccluded, green: moving object). Used for
// docs/journal/2026-12-07-ghost-trails-cause.md.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "api/resource_desc.h"
#include "cpu/cpu_backend.h"
#include "eval/comparison_pictures.h"
#include "eval/display_encode.h"
#include "eval/psnr.h"
#include "frame/frame_geometry.h"
#include "frame/output_pixel.h"
#include "model/model_spec.h"
#include "model/weights.h"
#include "numeric/half.h"
#include "render/render_sequence.h"

using namespace swinup;

namespace {

swinup_resource host_input(const Image& image, swinup_format format) {
    return input_resource(image.data.data(), format, uint32_t(image.width), uint32_t(image.height), SWINUP_MEMORY_HOST,
                          size_t(image.width) * size_t(image.channels) * sizeof(float));
}

// Per display pixel of one frame: alpha of its nearest render pixel and the history's share.
struct BlendPlanes {
    Image alpha, history_share;  // display size, 1 channel
    Image sample_cap;            // min(1, weight sum): the most the current frame can take
};

// What output_pixel_with() computes before it blends, for every display pixel, from the CPU
// backend's table of the frame's kernels (the same values the output pass read).
BlendPlanes blend_planes(const cpu::FramePlanes& planes, const FrameGeometry& g, bool history_valid) {
    BlendPlanes b{Image(g.display_width, g.display_height, 1), Image(g.display_width, g.display_height, 1),
                  Image(g.display_width, g.display_height, 1)};
    const KernelFromTable kernel{planes.kernels.data(), g.width};
    for (int oy = 0; oy < g.display_height; ++oy) {
        for (int ox = 0; ox < g.display_width; ++ox) {
            const float cx = output_position(ox, g.scale_x), cy = output_position(oy, g.scale_y);
            const int nx = nearest_render_pixel(cx, g.width), ny = nearest_render_pixel(cy, g.height);
            float sigma_major, sigma_minor, sin_theta, cos_theta;
            kernel.shape(nx, ny, &sigma_major, &sigma_minor, &sin_theta, &cos_theta);
            float weight_sum = 0.0f;
            for (int dy = -1; dy <= 1; ++dy) {
                const float sy = render_sample_position(px::clampi(ny + dy, 0, g.height - 1), g.jitter_y);
                for (int dx = -1; dx <= 1; ++dx) {
                    const float sx = render_sample_position(px::clampi(nx + dx, 0, g.width - 1), g.jitter_x);
                    weight_sum = exact::add(weight_sum, px::kernel_weight(exact::sub(sx, cx), exact::sub(sy, cy), sin_theta,
                                                                          cos_theta, sigma_major, sigma_minor));
                }
            }
            const float* mv = planes.dilated.data() + (size_t(ny) * size_t(g.width) + size_t(nx)) * 2;
            const float hx = float(ox) + 0.5f + mv[0] * g.scale_x, hy = float(oy) + 0.5f + mv[1] * g.scale_y;
            const bool valid =
                history_valid && px::on_screen(hx, g.display_width) && px::on_screen(hy, g.display_height);
            const float alpha = kernel.alpha(nx, ny);
            b.alpha.at(ox, oy, 0) = alpha;
            b.history_share.at(ox, oy, 0) = valid ? 1.0f - current_share(alpha, weight_sum) : 0.0f;
            b.sample_cap.at(ox, oy, 0) = std::min(weight_sum, 1.0f);
        }
    }
    return b;
}

struct RegionMeans {
    double alpha = 0, share = 0, cap = 0;
    long pixels = 0, cue_set = 0;  // cue_set: staged disocclusion cue (slot 6) above 0.05
    double alpha_cue = 0, share_cue = 0;  // over the pixels with the cue set
    void add(double a, double s, double c, bool cue) {
        alpha += a;
        share += s;
        cap += c;
        cue_set += cue;
        if (cue) {
            alpha_cue += a;
            share_cue += s;
        }
        ++pixels;
    }
    void add(const RegionMeans& o) {
        alpha += o.alpha;
        share += o.share;
        cap += o.cap;
        cue_set += o.cue_set;
        alpha_cue += o.alpha_cue;
        share_cue += o.share_cue;
        pixels += o.pixels;
    }
    void print(const char* name) const {
        const double n = pixels ? double(pixels) : 1.0, nc = cue_set ? double(cue_set) : 1.0;
        std::printf("  %-22s %8ld px  mean alpha %.3f  mean history share %.3f  mean min(1, weight sum) %.3f  "
                    "disocclusion cue > 0.05 on %.1f%% (there: alpha %.3f, history share %.3f)\n",
                    name, pixels, alpha / n, share / n, cap / n, 100.0 * double(cue_set) / n, alpha_cue / nc,
                    share_cue / nc);
    }
};

// The display-resolution history the output pass reads: linear RGB as f16 (history_value), A 0.
std::vector<uint16_t> half_history(const Image& linear) {
    std::vector<uint16_t> h(size_t(linear.width) * size_t(linear.height) * 4, 0);
    for (size_t p = 0; p < size_t(linear.width) * size_t(linear.height); ++p)
        for (size_t c = 0; c < 3; ++c) h[p * 4 + c] = history_value(linear.data[p * size_t(linear.channels) + c]);
    return h;
}

// `history` resampled as the output pass resamples it for frame g (no blend): linear RGB.
Image reproject(const std::vector<uint16_t>& history, const cpu::FramePlanes& planes, const FrameGeometry& g) {
    Image out(g.display_width, g.display_height, 3);
    for (int oy = 0; oy < g.display_height; ++oy) {
        for (int ox = 0; ox < g.display_width; ++ox) {
            const int nx = nearest_render_pixel(output_position(ox, g.scale_x), g.width);
            const int ny = nearest_render_pixel(output_position(oy, g.scale_y), g.height);
            const float* mv = planes.dilated.data() + (size_t(ny) * size_t(g.width) + size_t(nx)) * 2;
            const float hx = exact::add(float(ox) + 0.5f, exact::mul(mv[0], g.scale_x));
            const float hy = exact::add(float(oy) + 0.5f, exact::mul(mv[1], g.scale_y));
            px::lanczos3_sample(HalfRgbFetch{history.data(), g.display_width}, g.display_width, g.display_height, hx, hy,
                                out.pixel(ox, oy));
        }
    }
    return out;
}

Image grey(const Image& plane) {
    Image rgb(plane.width, plane.height, 3);
    for (size_t i = 0; i < plane.data.size(); ++i)
        for (int c = 0; c < 3; ++c) rgb.data[i * 3 + size_t(c)] = plane.data[i];
    return rgb;
}

Image mask_picture(const Image& motion_masks, const Image& under) {
    Image rgb(under.width, under.height, 3);
    for (int y = 0; y < under.height; ++y) {
        for (int x = 0; x < under.width; ++x) {
            const float* m = motion_masks.pixel(x, y);
            const float* u = under.pixel(x, y);
            const float l = 0.3f * (0.2126f * u[0] + 0.7152f * u[1] + 0.0722f * u[2]);
            rgb.at(x, y, 0) = m[0] > 0.5f ? 1.0f : l;
            rgb.at(x, y, 1) = m[1] > 0.5f && m[0] <= 0.5f ? 0.8f : l;
            rgb.at(x, y, 2) = l;
        }
    }
    return rgb;
}

// The crop of side `size` (on a grid of 8) holding the most disoccluded pixels.
eval::CropRect most_disoccluded(const Image& motion_masks, int size) {
    eval::CropRect best{0, 0, size};
    long best_count = -1;
    for (int y = 0; y + size <= motion_masks.height; y += 8) {
        for (int x = 0; x + size <= motion_masks.width; x += 8) {
            long n = 0;
            for (int j = y; j < y + size; ++j)
                for (int i = x; i < x + size; ++i) n += motion_masks.at(i, j, 0) > 0.5f;
            if (n > best_count) {
                best_count = n;
                best = {x, y, size};
            }
        }
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"What swinup's history weight does where moving objects uncover the background (CPU backend)"};
    render::RenderSettings settings;
    settings.scene = "showcase";
    std::string output = "out/history_weight", variant = "lite", sequence;
    int crop = 160, zoom = 3;
    std::vector<int> crop_at;  // X Y of the crop's top-left corner; empty: the most disoccluded crop
    app.add_option("--scene", settings.scene, "built-in scene")->capture_default_str();
    app.add_option("--sequence", sequence,
                   "a sequence folder rendered with ground truth and motion masks, instead of rendering --scene");
    app.add_option("--frames", settings.frames, "frames")->capture_default_str();
    app.add_option("--render-width", settings.render_width)->capture_default_str();
    app.add_option("--render-height", settings.render_height)->capture_default_str();
    app.add_option("--display-width", settings.display_width)->capture_default_str();
    app.add_option("--display-height", settings.display_height)->capture_default_str();
    app.add_option("--variant", variant, "lite or full")->check(CLI::IsMember({"lite", "full"}))->capture_default_str();
    app.add_option("--crop", crop, "crop side, display pixels")->capture_default_str();
    app.add_option("--zoom", zoom)->capture_default_str();
    app.add_option("--crop-at", crop_at, "X Y: the crop's top-left corner (display px; default: the most disoccluded)")
        ->expected(2);
    app.add_option("-o,--output", output, "folder for the picture")->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    render::RenderedSequence seq;
    if (sequence.empty()) {
        std::printf("rendering %s, %d frames...\n", settings.scene.c_str(), settings.frames);
        seq = render::render_sequence(settings);
    } else {
        seq.info = sequence_read_info(sequence);
        if (!seq.info.has_ground_truth || !seq.info.has_motion_masks) {
            std::fprintf(stderr, "%s: needs ground truth and motion masks\n", sequence.c_str());
            return 1;
        }
        for (int i = 0; i < seq.info.frame_count; ++i) seq.frames.push_back(sequence_read_frame(sequence, seq.info, i));
        settings.scene = std::filesystem::path(sequence).filename().string();
    }
    const SequenceInfo& info = seq.info;

    std::string error;
    auto weights = weights_load_embedded(variant == "full" ? Variant::full : Variant::lite, &error);
    if (!weights) {
        std::fprintf(stderr, "weights: %s\n", error.c_str());
        return 1;
    }
    swinup_context_desc desc = sized_context_desc(uint32_t(info.render_width), uint32_t(info.render_height),
                                                  uint32_t(info.display_width), uint32_t(info.display_height));
    desc.variant = variant == "full" ? SWINUP_VARIANT_FULL : SWINUP_VARIANT_LITE;
    desc.output_format = SWINUP_FORMAT_RGBA16F;
    cpu::CpuBackend backend(desc, weights);

    // Regions: uncovered background (disoccluded, not a moving object: where a trail shows),
    // uncovered on a moving object (a face turning into view), the moving objects' other pixels,
    // and the rest.
    RegionMeans pooled[4];
    const char* region_names[4] = {"uncovered background", "uncovered moving", "moving object", "rest"};
    Image last_output, last_alpha, last_share;
    std::vector<uint16_t> chained;  // the first frame's truth, resampled frame after frame
    eval::RegionSquaredError once_pooled, chained_pooled;
    for (int i = 0; i < info.frame_count; ++i) {
        const Frame& f = seq.frames[size_t(i)];
        std::vector<uint16_t> out(size_t(info.display_width) * size_t(info.display_height) * 4);
        swinup_dispatch_desc d = frame_dispatch_desc(
            host_input(f.color, SWINUP_FORMAT_RGBA32F), host_input(f.depth, SWINUP_FORMAT_R32F),
            host_input(f.mv, SWINUP_FORMAT_RG32F),
            output_resource(out.data(), SWINUP_FORMAT_RGBA16F, uint32_t(info.display_width),
                            uint32_t(info.display_height), SWINUP_MEMORY_HOST,
                            size_t(info.display_width) * 4 * sizeof(uint16_t)));
        d.jitter_x = info.jitter_x[size_t(i)];
        d.jitter_y = info.jitter_y[size_t(i)];
        d.reset = info.reset[size_t(i)];
        if (backend.dispatch(d, uint64_t(i), &error) != SWINUP_STATUS_OK) {
            std::fprintf(stderr, "frame %d: %s\n", i, error.c_str());
            return 1;
        }
        const FrameGeometry g = frame_geometry(info.render_width, info.render_height, info.display_width,
                                               info.display_height, d.jitter_x, d.jitter_y);
        const BlendPlanes b = blend_planes(backend.frame_planes(), g, i > 0 && info.reset[size_t(i)] == 0);
        RegionMeans regions[4];
        for (int y = 0; y < info.display_height; ++y) {
            for (int x = 0; x < info.display_width; ++x) {
                const float* m = f.motion_masks.pixel(x, y);
                const bool uncovered = m[0] > 0.5f, moving = m[1] > 0.5f;
                const int k = uncovered ? (moving ? 1 : 0) : (moving ? 2 : 3);
                // The network's disocclusion input (staged slot 6) at the display pixel's nearest
                // render pixel.
                const int nx = nearest_render_pixel(output_position(x, g.scale_x), g.width);
                const int ny = nearest_render_pixel(output_position(y, g.scale_y), g.height);
                const float cue = backend.frame_planes().staged[(size_t(ny) * size_t(pad_to_grid(g.width)) + size_t(nx)) *
                                                                    kSlots + 6];
                regions[k].add(b.alpha.at(x, y, 0), b.history_share.at(x, y, 0), b.sample_cap.at(x, y, 0), cue > 0.05f);
            }
        }
        // Reprojection on the moving objects' pixels that stay visible.
        std::vector<uint8_t> moving_visible(size_t(info.display_width) * size_t(info.display_height));
        for (size_t p = 0; p < moving_visible.size(); ++p) {
            moving_visible[p] = f.motion_masks.data[p * 2 + 1] > 0.5f && f.motion_masks.data[p * 2] <= 0.5f;
        }
        const Image truth_now = eval::display_encode(f.gt, 1.0f, info.hdr);
        if (i == 0) {
            chained = half_history(f.gt);
        } else {
            const Image once = reproject(half_history(seq.frames[size_t(i) - 1].gt), backend.frame_planes(), g);
            const Image chain = reproject(chained, backend.frame_planes(), g);
            chained = half_history(chain);
            const eval::RegionSquaredError e1 =
                eval::region_squared_error(eval::display_encode(once, 1.0f, info.hdr), truth_now, moving_visible, 1);
            const eval::RegionSquaredError ek =
                eval::region_squared_error(eval::display_encode(chain, 1.0f, info.hdr), truth_now, moving_visible, 1);
            once_pooled.add(e1);
            chained_pooled.add(ek);
            std::printf("moving objects, previous truth reprojected once: %.2f dB; first truth reprojected %d times: %.2f dB\n",
                        e1.psnr_db(), i, ek.psnr_db());
        }
        std::printf("frame %d\n", i);
        for (int k = 0; k < 4; ++k) regions[k].print(region_names[k]);
        if (i > 0) {
            for (int k = 0; k < 4; ++k) pooled[k].add(regions[k]);
        }
        last_output = Image(info.display_width, info.display_height, 3);
        for (size_t p = 0; p < size_t(info.display_width) * size_t(info.display_height); ++p)
            for (int c = 0; c < 3; ++c) last_output.data[p * 3 + size_t(c)] = f16_bits_to_f32(out[p * 4 + size_t(c)]);
        last_alpha = b.alpha;
        last_share = b.history_share;
    }
    std::printf("frames 1..%d (%s, %s)\n", info.frame_count - 1, settings.scene.c_str(), variant.c_str());
    for (int k = 0; k < 4; ++k) pooled[k].print(region_names[k]);
    std::printf("moving objects' visible pixels, frames 1..%d: previous truth reprojected once %.2f dB\n",
                info.frame_count - 1, once_pooled.psnr_db());

    const Frame& last = seq.frames.back();
    const Image shown = eval::display_encode(last_output, 1.0f, info.hdr);
    const Image truth = eval::display_encode(last.gt, 1.0f, info.hdr);
    const Image alpha = grey(last_alpha), share = grey(last_share), masks = mask_picture(last.motion_masks, truth);
    const int side = std::min({crop, info.display_width, info.display_height});
    const eval::CropRect rect =
        crop_at.empty() ? most_disoccluded(last.motion_masks, side)
                        : eval::CropRect{std::clamp(crop_at[0], 0, info.display_width - side),
                                         std::clamp(crop_at[1], 0, info.display_height - side), side};
    const Image picture = eval::compose_comparison(
        {"swinup " + variant, "ground truth", "alpha (head 7)", "history share", "uncovered/moving"},
        {&shown, &truth, &alpha, &share, &masks}, rect, zoom);
    std::filesystem::create_directories(output);
    const std::string path =
        (std::filesystem::path(output) / (settings.scene + "_" + variant + "_history_weight.png")).string();
    png_write(path, picture, false);
    std::printf("wrote %s (crop at %d,%d, side %d, frame %d)\n", path.c_str(), rect.x, rect.y, rect.size,
                info.frame_count - 1);
    return 0;
}
