#include "vulkan/layers/gather_rows.h"

#include "vulkan/layers/layer_params.h"

namespace swinup::vulkan {

void record_gather_rows(LayerRecorder& recorder, const GatherRowsCall& call) {
    constexpr int kGroup = 256;  // gather_rows.comp's local size
    const GatherRowsParams p{call.rows, call.words, call.in_stride_words, call.out_stride_words,
                             call.out_offset_words, call.gather_quadrants ? 1 : 0, call.coarse_w};
    const int count = call.rows * call.words;
    recorder.dispatch(LayerKernel::gather_rows, {call.in, call.out}, &p, sizeof p,
                      uint32_t((count + kGroup - 1) / kGroup), 1, 1);
}

}  // namespace swinup::vulkan
