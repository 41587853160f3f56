#include "vulkan/layers/window_attention.h"

#include <cmath>

#include "numeric/exact_math.h"
#include "vulkan/layers/layer_params.h"

namespace swinup::vulkan {

void record_window_attention(LayerRecorder& recorder, const AttentionCall& call, bool exact) {
    const int d = call.channels / call.heads;
    // 1/sqrt(d) as the CPU computes it (IEEE sqrt, then IEEE division), in both modes.
    const float inv_sqrt_d = exact::div(1.0f, exact::sqrt(static_cast<float>(d)));
    const AttentionParams p{call.width, call.height, call.channels, call.heads, call.shifted ? 1 : 0,
                            inv_sqrt_d, exact ? 1 : 0};
    // Two windows side by side per workgroup (window_attention.comp); fast mode's variant keeps
    // heads of up to 32 channels (every head of both variants) in registers.
    const LayerKernel kernel = !exact && d <= 32 ? LayerKernel::window_attention_fast : LayerKernel::window_attention;
    recorder.dispatch(kernel, {call.qkv, call.rel_bias, call.out}, &p, sizeof p,
                      uint32_t((call.width / 4 + 1) / 2), uint32_t(call.height / 4), uint32_t(call.heads));
}

}  // namespace swinup::vulkan
