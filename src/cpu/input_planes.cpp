#include "cpu/input_planes.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "frame/exposure.h"
#include "frame/input_image.h"
#include "frame/mask_pixel.h"
#include "frame/pixel_ops.h"

namespace swinup::cpu {

ReplacedCounts read_input_planes(const swinup_dispatch_desc& desc, const FrameSetup& frame, float exposure,
                                 float* color, float* z, float* motion, float* masks,
                                 std::vector<uint32_t>& row_counts) {
    const FrameGeometry& g = frame.geometry;
    const float pre_exposure = frame.exposure.pre_exposure;
    const InputImage color_image = input_image(desc.color);
    const InputImage depth_image = input_image(desc.depth);
    const InputImage mv_image = input_image(desc.motion_vectors);
    const swinup_resource* mask_resources[kMasks] = {&desc.reactive_mask, &desc.transparency_mask};
    InputImage mask_images[kMasks];
    for (int m = 0; m < kMasks; ++m) {  // not given: a default image (input_given false), read as 0
        if (masks != nullptr && mask_resources[m]->data != nullptr) mask_images[m] = input_image(*mask_resources[m]);
    }
    tbb::parallel_for(tbb::blocked_range<int>(0, g.height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            uint32_t color_count = 0, depth_count = 0, motion_count = 0, color_pixels = 0, motion_pixels = 0;
            uint32_t mask_nonfinite[kMasks] = {0, 0}, mask_out_of_range[kMasks] = {0, 0};
            for (int x = 0; x < g.width; ++x) {
                const size_t i = static_cast<size_t>(y) * static_cast<size_t>(g.width) + static_cast<size_t>(x);
                uint32_t pixel_replaced = 0;
                for (int c = 0; c < 3; ++c) {
                    bool replaced;
                    color[i * 3 + c] = px::stage_color(px::decode_colour(read_input(color_image, x, y, c), frame.srgb),
                                                       exposure, pre_exposure, frame.ldr, &replaced);
                    pixel_replaced += replaced;
                }
                color_count += pixel_replaced;
                color_pixels += pixel_replaced != 0;
                bool replaced;
                z[i] = px::stage_depth(read_input(depth_image, x, y, 0), frame.depth_inverted, &replaced);
                depth_count += replaced;
                if (masks == nullptr) continue;
                for (int m = 0; m < kMasks; ++m) {
                    bool nonfinite = false, out_of_range = false;
                    masks[i * kMasks + m] = staged_mask_pixel(mask_images[m], x, y, &nonfinite, &out_of_range);
                    mask_nonfinite[m] += nonfinite;
                    mask_out_of_range[m] += out_of_range;
                }
            }
            // Motion: at render resolution read in place; at display resolution read at the
            // display pixel that holds the sample's display position, then divided by s.
            int mv_y = y;
            float divide_x = 1.0f, divide_y = 1.0f;
            if (frame.mv_display_res) {
                const float dpy = exact::mul(exact::add(static_cast<float>(y) + 0.5f, g.jitter_y), g.scale_y);
                mv_y = px::clampi(px::floor_to_int(dpy), 0, g.display_height - 1);
                divide_x = g.scale_x;
                divide_y = g.scale_y;
            }
            for (int x = 0; x < g.width; ++x) {
                int mv_x = x;
                if (frame.mv_display_res) {
                    const float dpx = exact::mul(exact::add(static_cast<float>(x) + 0.5f, g.jitter_x), g.scale_x);
                    mv_x = px::clampi(px::floor_to_int(dpx), 0, g.display_width - 1);
                }
                const size_t i = static_cast<size_t>(y) * static_cast<size_t>(g.width) + static_cast<size_t>(x);
                bool replaced_x, replaced_y;
                const float mx = px::stage_motion(read_input(mv_image, mv_x, mv_y, 0), desc.mv_scale_x, divide_x,
                                                  &replaced_x);
                const float my = px::stage_motion(read_input(mv_image, mv_x, mv_y, 1), desc.mv_scale_y, divide_y,
                                                  &replaced_y);
                motion[i * 2 + 0] = exact::add(mx, frame.motion_offset_x);
                motion[i * 2 + 1] = exact::add(my, frame.motion_offset_y);
                motion_count += replaced_x + replaced_y;
                motion_pixels += (replaced_x || replaced_y);
            }
            uint32_t* row = row_counts.data() + static_cast<size_t>(y) * kRowCounts;
            const uint32_t values[kRowCounts] = {color_count,       depth_count,          motion_count,
                                                 color_pixels,      motion_pixels,        mask_nonfinite[0],
                                                 mask_nonfinite[1], mask_out_of_range[0], mask_out_of_range[1]};
            for (size_t k = 0; k < kRowCounts; ++k) row[k] = values[k];
        }
    });
    ReplacedCounts counts;
    for (int y = 0; y < g.height; ++y) {
        const uint32_t* row = row_counts.data() + static_cast<size_t>(y) * kRowCounts;
        counts.color += row[0];
        counts.depth += row[1];
        counts.motion += row[2];
        counts.color_pixels += row[3];
        counts.motion_pixels += row[4];
        for (int m = 0; m < kMasks; ++m) {
            counts.mask_nonfinite[m] += row[5 + m];
            counts.mask_out_of_range[m] += row[7 + m];
        }
    }
    return counts;
}

float auto_exposure(const swinup_dispatch_desc& desc, int width, int height, float pre_exposure, bool srgb,
                    std::vector<double>& row_sums) {
    const InputImage color_image = input_image(desc.color);
    tbb::parallel_for(tbb::blocked_range<int>(0, height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            double sum = 0.0;
            for (int x = 0; x < width; ++x)
                sum += static_cast<double>(auto_exposure_log2_luminance(color_image, x, y, pre_exposure, srgb));
            row_sums[static_cast<size_t>(y)] = sum;
        }
    });
    double total = 0.0;
    for (int y = 0; y < height; ++y) total += row_sums[static_cast<size_t>(y)];
    return auto_exposure_of_sum(total, width, height);
}

}  // namespace swinup::cpu
