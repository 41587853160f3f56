// A Swin block's attention half, x = x + proj(attention(qkv(norm1(x)))), as one kernel with a team
// of warps per 4x4 window (warp_team.cuh): for the level whose windows are too few to fill the GPU
// with one warp each (level 3, C = 128: ~900 windows at 720p), where attention_fused's time is one
// warp's chain through a whole window. The team's warps split every step: norm1 by rows, qkv and
// proj by 16-column steps, the attention by heads (one head per warp).
//
// Byte-identical to attention_fused and so to the layer-by-layer launches: the same functions on
// the same bytes. Each qkv and proj output is still one f32 accumulator from +0 taking the K chunks
// in increasing order with the GEMM's fragments (mma_step16), with the same epilogues; norm1 is
// rms_norm_row.cuh's sequence per row; each head is window_attention_head.cuh's definition. Which
// warp computes an output never changes how it is computed. docs/cuda-kernels.md, "Team kernels".
#pragma once

#include <cuda_runtime.h>

#include "cuda/fused/attention_fused.cuh"

namespace swinup::cuda {

// Whether the team kernel handles (C, h) on the current device: (128, 4) with a team of 4 warps (a
// head each) and (96, 4) with 2 (two heads each), when the weights and at least 2 teams' buffers
// fit in one CTA's shared memory.
bool attention_team_supported(int channels, int heads);

// Checks the preconditions (throws std::invalid_argument naming the field) and launches.
void attention_team(const AttentionBlockArgs& args, cudaStream_t stream);

}  // namespace swinup::cuda
