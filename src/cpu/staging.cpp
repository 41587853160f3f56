#include "cpu/staging.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "model/model_spec.h"

namespace swinup::cpu {

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
    const float* last_row = out.staged + static_cast<size_t>(cur.height - 1) * slot_row;
    tbb::parallel_for(tbb::blocked_range<int>(cur.height, out.padded_height),
                      [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y)
            std::memcpy(out.staged + static_cast<size_t>(y) * slot_row, last_row, slot_row * sizeof(float));
    });
}

}  // namespace swinup::cpu
