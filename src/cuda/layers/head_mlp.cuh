// The head MLP's two element-wise kernels of the layer-by-layer path (docs/model-spec.md, "The
// head MLP"; the three linears are gemm_e4m3 launches between them):
//   head_mlp_input: fc1's A rows, the head norm's 32 e4m3 bytes then the pixel's 16 staged slots
//                   (48 bytes a row; the GEMM zero-fills K 48..63, fc1's padding);
//   head_mlp_add:   head[p][k] = head[p][k] + y3[p][k] for k = 0..7, one IEEE f32 add each
//                   (__fadd_rn, never contracted); head outputs 8..15 are not touched, so they
//                   stay head.linear's values bit for bit (-0 stays -0).
// lite's fused tail (lite_tail_fused.cuh) and full's fused head (head_fused.cuh) compute the same
// values in registers (head_tile.cuh); these launches are the reference they equal, and run where
// those fusions are off or do not fit.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace swinup::cuda {

// out[p] = normed[p][0..32) ++ staged[p][0..16), p < pixels. All pointers 16-byte aligned.
void head_mlp_input(const uint8_t* normed, const uint8_t* staged, int pixels, uint8_t* out, cudaStream_t stream);

// head[p][k] += y3[p][k], k < 8; both f32 rows of 16 (y3: fc3's output padded to 16 columns,
// columns 8..15 unused). 16-byte aligned.
void head_mlp_add(const float* y3, int pixels, float* head, cudaStream_t stream);

}  // namespace swinup::cuda
