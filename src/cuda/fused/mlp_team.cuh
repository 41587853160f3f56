// A Swin block's MLP, x = x + fc2(GELU(fc1(norm2(x)))), as one kernel with a team of warps per
// 16-token tile (warp_team.cuh): for the level whose tiles are too few to fill the GPU with one
// warp each (level 3, C = 128: ~900 tiles at 720p), where mlp_fused's time is one warp's chain
// through a whole tile. The team's warps split norm2 by rows, fc1 by 16-column steps of the hidden
// width and fc2 by 16-column steps of the output.
//
// Byte-identical to mlp_fused and so to the layer-by-layer launches: norm2 is rms_norm_row.cuh's
// sequence per row; each fc1 output is one accumulator over its K chunks in order (mma_step16) with
// the GELU -> e4m3 epilogue; each fc2 output one accumulator that takes the hidden width's K chunks
// in increasing order in two parts, as mlp_fused<128> does, with the residual epilogue. Which warp
// computes an output never changes how it is computed. docs/cuda-kernels.md, "Team kernels".
#pragma once

#include <cuda_runtime.h>

#include "cuda/fused/mlp_fused.cuh"

namespace swinup::cuda {

// Whether the team kernel handles C on the current device: C = 128 (a team of 4 warps) or 96 (2
// warps), when the weights and at least 2 teams' buffers fit in one CTA's shared memory.
bool mlp_team_supported(int channels);

// Checks the preconditions (throws std::invalid_argument naming the field) and launches.
void mlp_team(const MlpArgs& args, cudaStream_t stream);

}  // namespace swinup::cuda
