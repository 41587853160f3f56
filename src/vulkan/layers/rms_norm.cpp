#include "vulkan/layers/rms_norm.h"

#include "vulkan/layers/layer_params.h"

namespace swinup::vulkan {

void record_rms_norm(LayerRecorder& recorder, const RmsNormCall& call, bool exact) {
    constexpr int kGroup = 64;  // rms_norm_e4m3.comp's local size
    const RmsNormParams p{call.rows, call.channels, call.gather_quadrants ? 1 : 0, call.coarse_w,
                          call.out_stride_words, 0, exact ? 1 : 0};
    const Groups2d g = groups_1d(uint64_t(call.rows), kGroup);
    recorder.dispatch(LayerKernel::rms_norm_e4m3, {call.x, call.gain, call.out}, &p, sizeof p, g.x, g.y, 1);
}

}  // namespace swinup::vulkan
