#include "cpu/input_planes.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "frame/pixel_ops.h"
#include "cpu/resource_io.h"

namespace swinup::cpu {

ReplacedCounts read_input_planes(const swinup_dispatch_desc& desc, const InputSettings& s,
                                 float* color, float* z, float* motion,
                                 std::vector<uint32_t>& row_counts) {
    tbb::parallel_for(tbb::blocked_range<int>(0, s.height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            uint32_t color_count = 0, depth_count = 0, motion_count = 0;
            const ResourceRow color_row(desc.color, y);
            const ResourceRow depth_row(desc.depth, y);
            for (int x = 0; x < s.width; ++x) {
                const size_t i = static_cast<size_t>(y) * static_cast<size_t>(s.width) + static_cast<size_t>(x);
                for (int c = 0; c < 3; ++c) {
                    bool replaced;
                    color[i * 3 + c] = px::stage_color(color_row.read(x, c), s.exposure,
                                                       s.pre_exposure, s.ldr, &replaced);
                    color_count += replaced;
                }
                bool replaced;
                z[i] = px::stage_depth(depth_row.read(x, 0), s.depth_inverted, &replaced);
                depth_count += replaced;
            }
            // Motion: at render resolution read in place; at display resolution read at the
            // display pixel that holds the sample's display position, then divided by s.
            int mv_y = y;
            float divide_x = 1.0f, divide_y = 1.0f;
            if (s.mv_display_res) {
                const float dpy = exact::mul(exact::add(static_cast<float>(y) + 0.5f, s.jitter_y), s.scale_y);
                mv_y = px::clampi(px::floor_to_int(dpy), 0, s.display_height - 1);
                divide_x = s.scale_x;
                divide_y = s.scale_y;
            }
            const ResourceRow mv_row(desc.motion_vectors, mv_y);
            for (int x = 0; x < s.width; ++x) {
                int mv_x = x;
                if (s.mv_display_res) {
                    const float dpx = exact::mul(exact::add(static_cast<float>(x) + 0.5f, s.jitter_x), s.scale_x);
                    mv_x = px::clampi(px::floor_to_int(dpx), 0, s.display_width - 1);
                }
                const size_t i = static_cast<size_t>(y) * static_cast<size_t>(s.width) + static_cast<size_t>(x);
                bool replaced_x, replaced_y;
                const float mx = px::stage_motion(mv_row.read(mv_x, 0), desc.mv_scale_x, divide_x, &replaced_x);
                const float my = px::stage_motion(mv_row.read(mv_x, 1), desc.mv_scale_y, divide_y, &replaced_y);
                motion[i * 2 + 0] = exact::add(mx, s.motion_offset_x);
                motion[i * 2 + 1] = exact::add(my, s.motion_offset_y);
                motion_count += replaced_x + replaced_y;
            }
            row_counts[static_cast<size_t>(y) * 3 + 0] = color_count;
            row_counts[static_cast<size_t>(y) * 3 + 1] = depth_count;
            row_counts[static_cast<size_t>(y) * 3 + 2] = motion_count;
        }
    });
    ReplacedCounts counts;
    for (int y = 0; y < s.height; ++y) {
        counts.color += row_counts[static_cast<size_t>(y) * 3 + 0];
        counts.depth += row_counts[static_cast<size_t>(y) * 3 + 1];
        counts.motion += row_counts[static_cast<size_t>(y) * 3 + 2];
    }
    return counts;
}

float auto_exposure(const swinup_dispatch_desc& desc, int width, int height, float pre_exposure,
                    std::vector<double>& row_sums) {
    constexpr float kMinLuminance = 6.103515625e-05f;  // 2^-14
    tbb::parallel_for(tbb::blocked_range<int>(0, height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            const ResourceRow row(desc.color, y);
            double sum = 0.0;
            for (int x = 0; x < width; ++x) {
                bool replaced;
                const float r = px::stage_color(row.read(x, 0), 1.0f, pre_exposure, false, &replaced);
                const float g = px::stage_color(row.read(x, 1), 1.0f, pre_exposure, false, &replaced);
                const float b = px::stage_color(row.read(x, 2), 1.0f, pre_exposure, false, &replaced);
                const float luminance = exact::add(exact::add(exact::mul(0.2126f, r), exact::mul(0.7152f, g)),
                                                   exact::mul(0.0722f, b));
                sum += static_cast<double>(exact::log2(px::maxf(luminance, kMinLuminance)));
            }
            row_sums[static_cast<size_t>(y)] = sum;
        }
    });
    double total = 0.0;
    for (int y = 0; y < height; ++y) total += row_sums[static_cast<size_t>(y)];
    const float mean_log2 = static_cast<float>(total / (static_cast<double>(width) * height));
    const float exposure = exact::div(0.18f, exact::exp2(mean_log2));
    return px::clampf(exposure, 9.5367431640625e-07f /* 2^-20 */, 1048576.0f /* 2^20 */);
}

}  // namespace swinup::cpu
