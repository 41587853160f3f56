// A Swin block's MLP as one kernel: x = x + fc2(GELU(fc1(norm2(x)))) (docs/model-spec.md), per
// 16-token tile, the e4m3 hidden activations kept in shared memory instead of a 4C-byte-per-token
// round trip through device memory.
//
// Byte-identical to the layer-by-layer kernels (rms_norm_e4m3 or the GEMM's fused norm, then
// gemm_e4m3 fc1 with the GELU -> e4m3 epilogue, then gemm_e4m3 fc2 with the residual epilogue):
// the normalised bytes come from the same rms_norm_row.cuh pieces; every fc1 and fc2 output is one
// f32 accumulator starting at +0 that takes the same mma.sync.m16n8k32 e4m3 instructions, K chunks
// in increasing order, with the same A and B fragments at the same fragment positions (the token's
// row within its 16-row tile and the column within its 16-column step are those of the GEMM); the
// epilogues apply the same operations to the same values (`t = acc * scale; y = t + bias`, then
// GELU -> e4m3, or f16(f32(x) + y)). docs/cuda-kernels.md, "Fused MLP".
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "swinup/swinup.h"

namespace swinup::cuda {

struct MlpArgs {
    uint16_t* x = nullptr;  // f16 [m, channels] residual stream, updated in place (16-byte aligned)
    int m = 0;              // tokens
    int channels = 0;       // C (see mlp_fused_supported); the hidden width is 4C
    const float* norm_gain = nullptr;  // norm2's gain [C]
    const uint8_t* w1 = nullptr;       // fc1 e4m3 [4C, C] (C % 32 == 0: no padding)
    const float* scale1 = nullptr;     // [4C]
    const float* bias1 = nullptr;      // [4C]
    const uint8_t* w2 = nullptr;       // fc2 e4m3 [C, 4C]
    const float* scale2 = nullptr;     // [C]
    const float* bias2 = nullptr;      // [C]
    swinup_precision precision = SWINUP_PRECISION_EXACT;
};

// Whether the fused kernel handles C on the current device: C = 32, 64, 96 or 128 (levels 0 to 3;
// at 128 with one row buffer and the hidden width in two parts), when both weight matrices and at
// least 4 warps' tile buffers fit in one CTA's shared memory.
bool mlp_fused_supported(int channels);

// Checks the preconditions (throws std::invalid_argument naming the field) and launches.
void mlp_fused(const MlpArgs& args, cudaStream_t stream);

// The preconditions every kernel taking these arguments has (mlp_fused, mlp_team): operands
// present, m positive, 16-byte aligned rows and weights. Throws std::invalid_argument
// "<kernel>: <what is wrong>".
void check_mlp_args(const MlpArgs& args, const char* kernel);

}  // namespace swinup::cuda
