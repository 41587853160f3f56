// A whole Swin block as one kernel: x = x + attention(norm1(x)), then x = x + mlp(norm2(x))
// (docs/model-spec.md), one warp per 4x4 window. The warp runs the attention half on its window's
// 16 token rows (attention_half.cuh, the code attention_fused runs), keeps the rows (now
// x + attention) in shared memory, runs the MLP half on those same rows (mlp_half.cuh, the code
// mlp_fused runs) and stores them to their tokens once: the residual stream makes one round trip
// through device memory per block instead of two, and one kernel fills and drains the GPU.
//
// Byte-identical to the two half kernels and to the layer-by-layer launches: each half is the
// same device function; the MLP is per token, and an mma output depends on its row's and
// column's operands only, so taking a window's 16 tokens as the MLP's tile instead of 16
// consecutive tokens does not change a byte (test_cuda_fusion compares every layer).
// docs/cuda-kernels.md, "Fused Swin block".
#pragma once

#include <cuda_runtime.h>

#include "cuda/fused/attention_fused.cuh"
#include "cuda/fused/mlp_fused.cuh"

namespace swinup::cuda {

// The block's two halves' operands, as the half kernels take them. attention.x is the residual
// stream; mlp.x, mlp.m, mlp.channels and mlp.precision must name the same tensor
// (attention.x, width * height tokens, attention.channels, attention.precision).
struct BlockFusedArgs {
    AttentionBlockArgs attention;  // x, the token grid, the shift, norm1, qkv, relative bias, proj
    MlpArgs mlp;                   // norm2, fc1, fc2
};

// Whether the fused block handles (C, h) on the current device: (32, 2), (64, 2) and (96, 4)
// (levels 0 to 2), when all four weight matrices and at least 4 warps' rows fit in one CTA's
// shared memory (sm_90: all three; sm_89's 99 KiB: only C = 32). C = 128 is not handled here.
bool block_fused_supported(int channels, int heads);

// Checks the preconditions (throws std::invalid_argument naming the field) and launches.
void block_fused(const BlockFusedArgs& args, cudaStream_t stream);

}  // namespace swinup::cuda
