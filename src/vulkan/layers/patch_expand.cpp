#include "vulkan/layers/patch_expand.h"

#include "vulkan/layers/gemm.h"
#include "vulkan/layers/rms_norm.h"

namespace swinup::vulkan {

void record_patch_expand(LayerRecorder& rec, const DeviceNormLinear& e, BufferView coarse, int w, int h,
                         BufferView skip, bool skip_f32, BufferView fine, const LayerScratch& s, bool exact) {
    const int tokens = w * h;
    // The norm fused into the GEMM's loads where record_gemm can.
    GemmCall g = normed_gemm_call(e.linear, coarse, tokens, e.gain, s.normed,
                                  skip_f32 ? GemmEpilogue::expand_f32_skip : GemmEpilogue::expand_f16_skip, fine, 0);
    g.skip = skip;
    g.coarse_w = w;
    record_gemm(rec, g, exact);
    rec.barrier();
}

}  // namespace swinup::vulkan
