// The linear layers' GEMM: y[m, n] = scale[n] * sum_k(a[m, k] * w[n, k]) + bias[n] on FP8 tensor
// cores (mma.sync.m16n8k32 e4m3 x e4m3 -> f32), then one of the epilogues below.
//
// Operands (docs/cuda-kernels.md has the full story):
//   a: activations, e4m3, row-major tokens x K (row stride lda bytes, a multiple of 16), or
//      gathered 2x2 fine tokens -> one coarse row (space_to_depth, the lite embedding), or the f16
//      residual stream normalised on the fly (rms_norm: the norm1 -> qkv and norm2 -> fc1 fusion);
//   w: weights, e4m3, [n_padded, k_padded] row-major (row = output channel), zero-padded to
//      K % 32 == 0 and N % 16 == 0 when uploaded (DeviceWeights);
//   scale, bias: f32 [n]. `t = acc * scale; y = t + bias`, never an FMA (model-spec.md).
// Summation order: the accumulator starts at +0 and adds the K/32 chunks k = [32c, 32c+32) for
// c = 0, 1, ... in increasing order, one mma.sync per chunk; inside a chunk the tensor core adds
// the 32 exact products (the operands sit at their PTX fragment positions, so the hardware k
// index equals the true k). Padding products are exact zeros.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "swinup/swinup.h"

namespace swinup::cuda {

enum class GemmEpilogue {
    store_f16,         // out_f16[m, n] = f16(y)
    store_f32,         // out_f32[m, n] = y
    relu_e4m3,         // out_e4m3[m, n] = e4m3(max(y, 0))
    gelu_e4m3,         // out_e4m3[m, n] = e4m3(gelu(y))
    residual_add_f16,  // out_f16[m, n] = f16(f32(out_f16[m, n]) + y), in place
    expand_add_f16,    // depth-to-space: n = q * C' + c, q = dy * 2 + dx, goes to fine token
                       // (2y + dy, 2x + dx) channel c: out = f16(y + skip), skip f16 or f32
    add_f32_store_f16,  // out_f16[m, n] = f16(y + skip_f32[m, n]) (lite: embed + mask_embed)
    add_f32_relu_e4m3,  // out_e4m3[m, n] = e4m3(max(y + skip_f32[m, n], 0)) (full: embed0 + mask_embed)
};

enum class GemmGather {
    rows,            // a row m = a + m * lda
    space_to_depth,  // a row m = the 4 fine rows (2y+dy, 2x+dx), (dy, dx) order, each lda bytes
    rms_norm,        // a row m = RMSNorm(f16 token a + m * lda, norm_gain) -> e4m3, computed as the
                     // tile is staged: byte for byte rms_norm_e4m3 (rows) and then `rows`
                     // (lda = 2 * a_cols, a_cols = k_padded: C % 32 == 0)
};

struct GemmArgs {
    const uint8_t* a = nullptr;
    int lda = 0;           // bytes per A row (rows) or per fine row (space_to_depth); % 16 == 0
    int a_cols = 0;        // real K of A (bytes); columns k >= a_cols read as zero
    GemmGather gather = GemmGather::rows;
    int m = 0;             // rows (tokens of the output grid)
    int grid_width = 0;    // output-grid width in tokens (space_to_depth and expand_add_f16)
    const uint8_t* w = nullptr;  // [n_padded, k_padded]
    int k_padded = 0;      // % 32 == 0
    int n = 0;             // % 16 == 0
    const float* scale = nullptr;
    const float* bias = nullptr;
    const float* norm_gain = nullptr;  // rms_norm: [a_cols]
    GemmEpilogue epilogue = GemmEpilogue::store_f16;
    swinup_precision precision = SWINUP_PRECISION_EXACT;
    void* out = nullptr;   // f16 / f32 / e4m3 per epilogue; row stride n (expand: C' = n / 4)
    const void* skip = nullptr;  // expand_add_f16: fine-grid skip, f16 or f32, row stride n / 4;
                                 // add_f32_*: the f32 addend, row stride n
    bool skip_f32 = false;
};

// Checks the preconditions (throws std::invalid_argument naming the field) and launches.
void gemm_e4m3(const GemmArgs& args, cudaStream_t stream);

}  // namespace swinup::cuda
