#include "cpu/output_pass.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "frame/debug_view.h"
#include "frame/formats.h"
#include "frame/sharpen_pixel.h"
#include "frame/output_encoding.h"
#include "frame/recurrent_features.h"
#include "model/model_spec.h"
#include "cpu/simd/simd_level.h"
#include "cpu/simd/simd_target.h"

namespace swinup::cpu {

namespace {

// Rows [y0, y1) of pixel_kernels().
void kernel_rows(const OutputCurrent& cur, PixelKernel* kernels, int y0, int y1) {
    for (int y = y0; y != y1; ++y) {
        for (int x = 0; x < cur.width; ++x) {
            const size_t i = static_cast<size_t>(y) * static_cast<size_t>(cur.width) + static_cast<size_t>(x);
            const float* h = cur.head + (static_cast<size_t>(y) * static_cast<size_t>(cur.head_stride) + static_cast<size_t>(x)) * kHeadOutputs;
            kernels[i] = pixel_kernel(h, cur.motion + i * 2, cur.still_history_shift,
                                      mask_at(cur.masks, static_cast<int64_t>(i), kTransparencyMask));
        }
    }
}

// Rows [y0, y1) of output_frame(): the output pixel, the history value of the colour kept as
// history (which differs from the displayed one under a reactive mask) and the output's encoding.
void output_rows(const OutputCurrent& cur, const OutputPrevious& prev, const KernelFromTable& kernel,
                 uint16_t* new_history, const OutputTarget& target, int y0, int y1) {
    const swinup_resource& res = *target.resource;
    for (int y = y0; y != y1; ++y) {
        uint8_t* row = static_cast<uint8_t*>(res.data_mut) + static_cast<size_t>(y) * resource_row_pitch(res);
        uint16_t* history_row = new_history + static_cast<size_t>(y) * static_cast<size_t>(cur.display_width) * 4;
        for (int x = 0; x < cur.display_width; ++x) {
            float out[3], kept[3];
            output_pixel_with(cur, prev, x, y, kernel, out, kept);
            uint16_t* h = history_row + static_cast<size_t>(x) * 4;
            for (int c = 0; c < 3; ++c) h[c] = history_value(kept[c]);
            h[3] = 0;
            float v[3];
            for (int c = 0; c < 3; ++c) v[c] = output_units(out[c], target.exposure, target.pre_exposure);
            if (cur.debug_depth != nullptr) {  // the view replaces the output, not the history
                int nx, ny;
                const int q = debug_view_source(x, y, cur.display_width, cur.display_height, cur.width, cur.height,
                                                &nx, &ny);
                const size_t n = static_cast<size_t>(ny) * static_cast<size_t>(cur.width) + static_cast<size_t>(nx);
                debug_view_value(q, cur.tc + n * 3, cur.debug_depth[n], cur.motion + n * 2, kernel.alpha(nx, ny),
                                 target.exposure, target.pre_exposure, v);
            }
            if (target.sharpness > 0.0f) {  // sharpen_rows writes it, once every neighbour is made
                float* keep = target.presharpen + (static_cast<size_t>(y) * cur.display_width + x) * 3;
                for (int c = 0; c < 3; ++c) keep[c] = v[c];
                continue;
            }
            write_output_pixel(res.format, v, row, x);
        }
    }
}

// Rows [y0, y1) of the sharpened output (frame/sharpen_pixel.h) from target.presharpen.
void sharpen_rows(int width, int height, const OutputTarget& target, int y0, int y1) {
    const swinup_resource& res = *target.resource;
    const float* v = target.presharpen;
    const auto at = [&](int x, int y) {
        return v + (static_cast<size_t>(px::clampi(y, 0, height - 1)) * width + px::clampi(x, 0, width - 1)) * 3;
    };
    for (int y = y0; y != y1; ++y) {
        uint8_t* row = static_cast<uint8_t*>(res.data_mut) + static_cast<size_t>(y) * resource_row_pitch(res);
        for (int x = 0; x < width; ++x) {
            float out[3];
            sharpen_pixel(at(x, y), at(x, y - 1), at(x - 1, y), at(x + 1, y), at(x, y + 1), target.sharpness, out);
            write_output_pixel(res.format, out, row, x);
        }
    }
}

}  // namespace

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX2_BEGIN
namespace avx2 {
namespace {
// The same rows compiled for AVX2, FMA and F16C: the exact-mode formulas' fma become one
// instruction each (a library call in a build for the x86-64 baseline); same operations, same bits.
__attribute__((flatten)) void kernel_rows(const OutputCurrent& cur, PixelKernel* kernels, int y0, int y1) {
    cpu::kernel_rows(cur, kernels, y0, y1);
}
__attribute__((flatten)) void output_rows(const OutputCurrent& cur, const OutputPrevious& prev,
                                          const KernelFromTable& kernel, uint16_t* new_history,
                                          const OutputTarget& target, int y0, int y1) {
    cpu::output_rows(cur, prev, kernel, new_history, target, y0, y1);
}
}  // namespace
}  // namespace avx2
SWINUP_TARGET_AVX2_END
#define SWINUP_OUTPUT_ROWS(fn, ...) \
    (simd_level() == SimdLevel::scalar ? fn(__VA_ARGS__) : avx2::fn(__VA_ARGS__))
#else
#define SWINUP_OUTPUT_ROWS(fn, ...) fn(__VA_ARGS__)
#endif

void pixel_kernels(const OutputCurrent& cur, PixelKernel* kernels) {
    tbb::parallel_for(tbb::blocked_range<int>(0, cur.height), [&](const tbb::blocked_range<int>& rows) {
        SWINUP_OUTPUT_ROWS(kernel_rows, cur, kernels, rows.begin(), rows.end());
    });
}

void output_frame(const OutputCurrent& cur, const OutputPrevious& prev, PixelKernel* kernel_scratch,
                  uint16_t* new_history, const OutputTarget& target) {
    pixel_kernels(cur, kernel_scratch);
    const KernelFromTable kernel{kernel_scratch, cur.width};
    tbb::parallel_for(tbb::blocked_range<int>(0, cur.display_height), [&](const tbb::blocked_range<int>& rows) {
        SWINUP_OUTPUT_ROWS(output_rows, cur, prev, kernel, new_history, target, rows.begin(), rows.end());
    });
    if (target.sharpness > 0.0f) {
        tbb::parallel_for(tbb::blocked_range<int>(0, cur.display_height), [&](const tbb::blocked_range<int>& rows) {
            sharpen_rows(cur.display_width, cur.display_height, target, rows.begin(), rows.end());
        });
    }
}

void keep_recurrent_features(const float* head, int head_stride, int width, int height,
                             uint16_t* recurrent) {
    tbb::parallel_for(tbb::blocked_range<int>(0, height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            for (int x = 0; x < width; ++x) {
                const float* h = head + (static_cast<size_t>(y) * static_cast<size_t>(head_stride) + static_cast<size_t>(x)) * kHeadOutputs;
                uint16_t* r = recurrent + (static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * kRecurrentFeatures;
                recurrent_features(h, r);
            }
        }
    });
}

}  // namespace swinup::cpu

