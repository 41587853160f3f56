#include "cpu/output_pass.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "frame/formats.h"
#include "frame/output_encoding.h"
#include "frame/recurrent_features.h"
#include "model/model_spec.h"

namespace swinup::cpu {

void pixel_kernels(const OutputCurrent& cur, PixelKernel* kernels) {
    tbb::parallel_for(tbb::blocked_range<int>(0, cur.height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            for (int x = 0; x < cur.width; ++x) {
                const size_t i = static_cast<size_t>(y) * static_cast<size_t>(cur.width) + static_cast<size_t>(x);
                const float* h = cur.head + (static_cast<size_t>(y) * static_cast<size_t>(cur.head_stride) + static_cast<size_t>(x)) * kHeadOutputs;
                kernels[i] = pixel_kernel(h, cur.motion + i * 2, cur.still_history_shift);
            }
        }
    });
}

void output_frame(const OutputCurrent& cur, const OutputPrevious& prev, PixelKernel* kernel_scratch,
                  uint16_t* new_history, const OutputTarget& target) {
    const swinup_resource& res = *target.resource;
    pixel_kernels(cur, kernel_scratch);
    const KernelFromTable kernel{kernel_scratch, cur.width};
    tbb::parallel_for(tbb::blocked_range<int>(0, cur.display_height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            uint8_t* row = static_cast<uint8_t*>(res.data_mut) + static_cast<size_t>(y) * resource_row_pitch(res);
            uint16_t* history_row = new_history + static_cast<size_t>(y) * static_cast<size_t>(cur.display_width) * 4;
            for (int x = 0; x < cur.display_width; ++x) {
                float out[3];
                output_pixel_with(cur, prev, x, y, kernel, out);
                uint16_t* h = history_row + static_cast<size_t>(x) * 4;
                for (int c = 0; c < 3; ++c) h[c] = history_value(out[c]);
                h[3] = 0;
                float v[3];
                for (int c = 0; c < 3; ++c) v[c] = output_units(out[c], target.exposure, target.pre_exposure);
                write_output_pixel(res.format, v, row, x);
            }
        }
    });
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

