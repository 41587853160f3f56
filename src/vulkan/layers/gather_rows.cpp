#include "vulkan/layers/gather_rows.h"

#include "vulkan/layers/layer_params.h"

namespace swinup::vulkan {

void record_gather_rows(LayerRecorder& recorder, const GatherRowsCall& call) {
    constexpr int kGroup = 256;  // gather_rows.comp's local size
    const GatherRowsParams p{call.rows, call.words, call.in_stride_words, call.out_stride_words,
                             call.out_offset_words, call.gather_quadrants ? 1 : 0, call.coarse_w};
    const Groups2d g = groups_1d(uint64_t(call.rows) * uint64_t(call.words), kGroup);
    recorder.dispatch(LayerKernel::gather_rows, {call.in, call.out}, &p, sizeof p, g.x, g.y, 1);
}

}  // namespace swinup::vulkan
