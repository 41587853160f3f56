// Window attention of a Swin block (model-spec.md) on f16 tensor cores (mma.sync.m16n8k16,
// f16 x f16 -> f32), one warp per (window, head):
//   s_ij = q_i . k_j (tensor core, f32), s_ij = s_ij * (1/sqrt(d)) + f32(rel_bias[h, i, j]);
//   masked keys (shifted windows at the wrap) are excluded;
//   m_i = max_j s_ij, p_ij = f16(exp2((s_ij - m_i) * log2e)), l_i = sum_j p_ij (f32, j = 0..15 in
//   order, gathered across the quad by shuffles), o_i = (sum_j p_ij v_j) / l_i (tensor core) -> e4m3.
// Queries, keys and values are read at the window's grid tokens (window_map.h), which rolls and
// rolls back the shifted grid without moving data; the output lands at the same tokens.
// Head dims 16, 24 (zero-padded to 32 for Q K^T) and 32.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "swinup/swinup.h"

namespace swinup::cuda {

struct WindowAttentionArgs {
    const uint16_t* qkv = nullptr;       // f16, tokens x 3C: q [0, C), k [C, 2C), v [2C, 3C)
    int width = 0, height = 0;           // token grid, multiples of 4
    int channels = 0, heads = 0;         // C, h; d = C / h in {16, 24, 32}
    const uint16_t* rel_bias = nullptr;  // f16 [h, 16, 16] (query token, key token)
    bool shifted = false;
    swinup_precision precision = SWINUP_PRECISION_EXACT;
    uint8_t* out = nullptr;              // e4m3, tokens x C
};

void window_attention(const WindowAttentionArgs& args, cudaStream_t stream);

}  // namespace swinup::cuda
