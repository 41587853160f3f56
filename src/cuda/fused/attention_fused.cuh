// A Swin block's attention half as one kernel: x = x + proj(attention(qkv(norm1(x)))) per 4x4
// window (docs/model-spec.md), one warp per window: the window's 16 tokens are exactly one m16 tile,
// so the norm output, Q K V (6C bytes per token) and the attention output (C bytes) stay in
// shared memory instead of three round trips through device memory.
//
// Byte-identical to the layer-by-layer kernels (rms_norm_e4m3 or the GEMM's fused norm, gemm_e4m3
// qkv with the f16 epilogue, window_attention, gemm_e4m3 proj with the residual epilogue): norm1
// with the rms_norm_row.cuh pieces; every qkv and proj output is one f32 accumulator from +0 that
// takes the GEMM's mma.sync.m16n8k32 e4m3 instructions, K chunks in increasing order
// (warp_tile_mma.cuh), with the same `t = acc * scale; y = t + bias` epilogue; the attention is
// window_attention_head.cuh's definition, the one the unfused kernel calls. The rows of a tile are
// the window's tokens (window_map.h) instead of 16 consecutive tokens: an output's value depends
// on its row's operands, not on the fragment row it occupies. docs/cuda-kernels.md, "Fused
// attention".
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "swinup/swinup.h"

namespace swinup::cuda {

struct AttentionBlockArgs {
    uint16_t* x = nullptr;          // f16 [height * width, channels] residual stream, updated in place
    int width = 0, height = 0;      // token grid, multiples of 4
    int channels = 0, heads = 0;    // C, h (see attention_fused_supported)
    bool shifted = false;           // Swin's cyclic shift by 2 tokens (and its mask)
    const float* norm_gain = nullptr;  // norm1's gain [C]
    const uint8_t* w_qkv = nullptr;    // e4m3 [3C, C]
    const float* scale_qkv = nullptr;  // [3C]
    const float* bias_qkv = nullptr;   // [3C]
    const uint16_t* rel_bias = nullptr;  // f16 [h, 16, 16]
    const uint8_t* w_proj = nullptr;   // e4m3 [C, C]
    const float* scale_proj = nullptr;  // [C]
    const float* bias_proj = nullptr;   // [C]
    swinup_precision precision = SWINUP_PRECISION_EXACT;
};

// Whether the fused kernel handles (C, h) on the current device: the v1 blocks (32, 2), (64, 2),
// (96, 4) and (128, 4), when both weight matrices and at least 2 warps' buffers fit in one CTA's
// shared memory.
bool attention_fused_supported(int channels, int heads);

// Checks the preconditions (throws std::invalid_argument naming the field) and launches.
void attention_fused(const AttentionBlockArgs& args, cudaStream_t stream);

// The preconditions every kernel taking these arguments has (attention_fused, attention_team):
// operands present, the grid a positive multiple of 4 tokens each way, 16-byte aligned rows and
// weights. Throws std::invalid_argument "<kernel>: <what is wrong>".
void check_attention_args(const AttentionBlockArgs& args, const char* kernel);

}  // namespace swinup::cuda
