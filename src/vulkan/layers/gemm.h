// Records the linear layer y = scale * (a w^T) + bias with one of its epilogues
// (shaders/layers/gemm_e4m3.comp). Exact and fast mode share the accumulation order (k in order,
// the CPU's), so the accumulators are the CPU's bits in both; only GELU differs.
#pragma once

#include "vulkan/layers/device_weights.h"
#include "vulkan/layers/layer_params.h"
#include "vulkan/layers/layer_recorder.h"

namespace swinup::vulkan {

struct GemmCall {
    const DeviceLinear* layer = nullptr;
    BufferView a;              // e4m3 rows (4 per uint)
    int rows = 0;
    int lda_words = 0;         // a's row stride in uints (>= layer->in / 4)
    int a_offset_words = 0;    // a's first uint (the head MLP's input columns)
    GemmEpilogue epilogue = GemmEpilogue::store_f32;
    BufferView out;
    int ldo = 0;               // output row stride in values (epilogues other than expand)
    int out_offset = 0;        // first output value (a multiple of 4)
    BufferView skip;           // expand: the skip at the fine grid (f16 or f32); add_f32_*: the f32
                               // values added to y, laid out as the output (ldo apart)
    int coarse_w = 0;          // expand: width of the coarse grid
    // The RMSNorm before the layer: `a` then holds the f16 rows and this is the norm's gain;
    // record_gemm runs the norm kernel into `norm_scratch` first, or fuses it into the GEMM's
    // A loads where fused_norm() says so.
    BufferView norm_gain;
    BufferView norm_scratch;
};

// Whether record_gemm fuses a call's RMSNorm into the GEMM (else it records the norm kernel and a
// barrier before it): only with SWINUP_VULKAN_FUSED=norms, in fast mode on the matrix tiles (it is
// slower than the norm kernel as written: gemm.cpp).
bool fused_norm(const LayerRecorder& recorder, bool exact);
// The process-wide switch behind it (SWINUP_VULKAN_FUSED=norms sets it at first use); tests set it.
bool fused_norms_enabled();
void set_fused_norms(bool on);

// The common case with the norm: RMSNorm(x rows of `layer->in` f16, gain) -> linear -> epilogue.
inline GemmCall normed_gemm_call(const DeviceLinear& layer, BufferView x, int rows, BufferView gain,
                                 BufferView scratch, GemmEpilogue epilogue, BufferView out, int ldo) {
    GemmCall g;
    g.layer = &layer;
    g.a = x;
    g.rows = rows;
    g.lda_words = layer.in / 4;
    g.epilogue = epilogue;
    g.out = out;
    g.ldo = ldo;
    g.norm_gain = gain;
    g.norm_scratch = scratch;
    return g;
}

// The common case: rows of a (lda_words uints apart) -> epilogue -> out (ldo values apart).
inline GemmCall gemm_call(const DeviceLinear& layer, BufferView a, int rows, int lda_words, GemmEpilogue epilogue,
                          BufferView out, int ldo) {
    GemmCall g;
    g.layer = &layer;
    g.a = a;
    g.rows = rows;
    g.lda_words = lda_words;
    g.epilogue = epilogue;
    g.out = out;
    g.ldo = ldo;
    return g;
}

void record_gemm(LayerRecorder& recorder, const GemmCall& call, bool exact);

}  // namespace swinup::vulkan
