#include "cpu/staging.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "frame/mask_pixel.h"
#include "model/model_spec.h"

namespace swinup::cpu {

namespace {

// The network's mask plane: every padded pixel's pair, from the nearest real pixel.
void stage_masks(const StageCurrent& cur, const StagingOutput& out) {
    tbb::parallel_for(tbb::blocked_range<int>(0, out.padded_height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            const size_t source_row = static_cast<size_t>(std::min(y, cur.height - 1)) * static_cast<size_t>(cur.width);
            float* row = out.staged_masks + static_cast<size_t>(y) * static_cast<size_t>(out.padded_width) * kMasks;
            for (int x = 0; x < out.padded_width; ++x) {
                const float* m = out.masks + (source_row + static_cast<size_t>(std::min(x, cur.width - 1))) * kMasks;
                for (int k = 0; k < kMasks; ++k) row[static_cast<size_t>(x) * kMasks + k] = mask_network_value(m[k]);
            }
        }
    });
}

}  // namespace

void stage_frame(const StageCurrent& cur, const StagePrevious& prev, const StagingOutput& out) {
    const size_t slot_row = static_cast<size_t>(out.padded_width) * kSlots;
    const size_t pixel_bytes = kSlots * sizeof(float);
    tbb::parallel_for(tbb::blocked_range<int>(0, cur.height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            float* staged_row = out.staged + static_cast<size_t>(y) * slot_row;
            for (int x = 0; x < cur.width; ++x) {
                const size_t i = static_cast<size_t>(y) * static_cast<size_t>(cur.width) + static_cast<size_t>(x);
                float* mv = out.dilated + i * 2;
                stage_dilated_motion(cur, x, y, mv);
                stage_slots(cur, prev, x, y, mv, staged_row + static_cast<size_t>(x) * kSlots, out.tc + i * 3);
            }
            const float* edge = staged_row + static_cast<size_t>(cur.width - 1) * kSlots;
            for (int x = cur.width; x < out.padded_width; ++x)
                std::memcpy(staged_row + static_cast<size_t>(x) * kSlots, edge, pixel_bytes);
        }
    });
    if (out.masks != nullptr) stage_masks(cur, out);
    const float* last_row = out.staged + static_cast<size_t>(cur.height - 1) * slot_row;
    tbb::parallel_for(tbb::blocked_range<int>(cur.height, out.padded_height),
                      [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y)
            std::memcpy(out.staged + static_cast<size_t>(y) * slot_row, last_row, slot_row * sizeof(float));
    });
}

}  // namespace swinup::cpu
