#include "vulkan/layers/patch_merge.h"

#include "vulkan/layers/gemm.h"
#include "vulkan/layers/rms_norm.h"

namespace swinup::vulkan {

void record_patch_merge(LayerRecorder& rec, const DeviceNormLinear& m, BufferView fine, int w, int h,
                        BufferView coarse, const LayerScratch& s, bool exact) {
    const int k = m.linear.in, c = k / 4, tokens = (w / 2) * (h / 2);
    record_rms_norm(rec, {fine, m.gain, s.normed, tokens, c, true, w / 2, k / 4}, exact);
    rec.barrier();
    record_gemm(rec, gemm_call(m.linear, s.normed, tokens, k / 4, GemmEpilogue::store_f16, coarse, m.linear.out),
                exact);
    rec.barrier();
}

}  // namespace swinup::vulkan
