#include "vulkan/layers/swin_block.h"

#include "vulkan/layers/gemm.h"
#include "vulkan/layers/rms_norm.h"
#include "vulkan/layers/window_attention.h"

namespace swinup::vulkan {

void record_swin_block(LayerRecorder& rec, const DeviceBlock& b, BufferView x, int w, int h, bool shifted,
                       const LayerScratch& s, bool exact) {
    const int c = b.spec.channels, tokens = w * h;
    // Attention half (the norms fused into the next GEMM's loads where record_gemm can).
    record_gemm(rec, normed_gemm_call(b.qkv, x, tokens, b.norm1, s.normed, GemmEpilogue::store_f16, s.qkv, 3 * c),
                exact);
    rec.barrier();
    record_window_attention(rec, {s.qkv, b.rel_bias, s.normed, w, h, c, b.spec.heads, shifted}, exact);
    rec.barrier();
    record_gemm(rec, gemm_call(b.proj, s.normed, tokens, c / 4, GemmEpilogue::residual_f16, x, c), exact);
    rec.barrier();
    // MLP half.
    record_gemm(rec, normed_gemm_call(b.fc1, x, tokens, b.norm2, s.normed, GemmEpilogue::gelu_e4m3, s.wide, 4 * c),
                exact);
    rec.barrier();
    record_gemm(rec, gemm_call(b.fc2, s.wide, tokens, c, GemmEpilogue::residual_f16, x, c), exact);
    rec.barrier();
}

}  // namespace swinup::vulkan
