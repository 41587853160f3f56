// The full variant's head as one kernel (docs/model-spec.md, "Layers" and "The head MLP"): per
// render pixel, dec0's f16 row (32 channels) -> the head RMSNorm (e4m3) -> head.linear (32 -> 16,
// f32) and, when the weights have the head MLP, fc1 (the head norm's 32 bytes ++ the pixel's 16
// staged slots) -> ReLU -> e4m3 -> fc2 -> ReLU -> e4m3 -> fc3, added to head outputs 0-7. Layer by
// layer these are rms_norm_e4m3, gemm_e4m3 store_f32, head_mlp_input, three gemm_e4m3 and
// head_mlp_add, whose e4m3 and f32 rows go through device memory (the head MLP alone 0.357 ms of
// full's 2.583 ms at 1280x720 on the H200); fused, only d0's rows and the staged slots are read and
// the head outputs written.
//
// Byte-identical to those launches: a warp takes 32 consecutive pixels (two 16-row tiles) and
// runs head_tile.cuh's head_pair on them, the device code lite's fused tail runs on its quadrant
// pairs (the equality argument is there).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/fused/head_weights.h"
#include "swinup/swinup.h"

namespace swinup::cuda {

struct HeadArgs {
    const uint16_t* d0 = nullptr;     // f16 [pixels][32]: dec0's output
    const uint8_t* staged = nullptr;  // e4m3 [pixels][16]: the staged slots (read with the head MLP only)
    int pixels = 0;                   // render pixels of the padded grid (pixels % 32 == 0)
    HeadWeights head_w;  // the head norm, head.linear (and the head MLP)
    swinup_precision precision = SWINUP_PRECISION_EXACT;
    float* head = nullptr;  // f32 [pixels][16]
};

// Whether this device's per-block shared memory holds the kernel's 8 warps (54,272 bytes; with
// the head MLP's weights and the staged rows 75,072: sm_89 and sm_90 both; the network otherwise
// keeps the layer-by-layer launches).
bool head_fused_supported(bool head_mlp);

// Checks the preconditions (throws std::invalid_argument naming the field) and launches.
void head_fused(const HeadArgs& args, cudaStream_t stream);

}  // namespace swinup::cuda
