// The lite variant's last three layers as one kernel (docs/model-spec.md, "Levels"): per level-1
// token of dec1's output, expand0 (RMSNorm -> linear 64 -> 4 x 32, depth-to-space) plus skip0 (a
// linear 16 -> 32 of each of its 2x2 render pixels' staged slots), then per render pixel the head
// (RMSNorm -> linear 32 -> 16, f32). At full render resolution these layers move the most bytes
// of the network (skip0's f32 rows, d0, the head norm's e4m3 rows, each written and read back);
// fused, only dec1's rows and the staged slots are read and the head outputs written.
//
// Byte-identical to the layer-by-layer kernels (rms_norm_e4m3, gemm_e4m3 skip0 store_f32, expand0
// expand_add_f16 with the f32 skip, rms_norm_e4m3 and gemm_e4m3 head store_f32): the norms with
// rms_norm_row.cuh's pieces, every product one f32 accumulator from +0 over the same K chunks in
// increasing order (warp_tile_mma.cuh), the same epilogue operations on the same values
// (`t = acc * scale; y = t + bias`; d0 = f16(y_expand + y_skip)).
//
// With the head MLP (weights format 3, `w_fc1` set; docs/model-spec.md, "The head MLP") the same
// warp also runs it on two 16-pixel quadrants at a time: fc1's A fragments are the head norm's (K
// chunk 0, the fragment head.linear reads) and the staged rows' (K chunk 1: slots in bytes 0-15,
// zeros in 16-31, as fc1's zero-filled K 48..63 in the layer-by-layer GEMM), fc1 and fc2 -> ReLU
// -> e4m3 rows in shared memory, fc3 -> f32 added to head outputs 0-7 before they are stored (one
// IEEE add, as head_mlp_add). The equality with the launches (head_mlp.cuh + three GEMMs) is the same
// argument: each output one accumulator from +0 over the same chunks in increasing order, the
// same epilogue operations (device_math.cuh's scale_bias, relu, e4m3x2). The head part (head norm,
// head linear, the head MLP, the f32 stores) is head_tile.cuh's head_pair, which full's fused head
// (head_fused.cuh) runs too.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/fused/head_weights.h"
#include "swinup/swinup.h"

namespace swinup::cuda {

struct LiteTailArgs {
    const uint16_t* d1 = nullptr;     // f16 [h1][w1][64]: dec1's output
    const uint8_t* staged = nullptr;  // e4m3 [2 h1][2 w1][16]: the staged slots
    int width1 = 0, height1 = 0;      // level-1 grid (w1 % 16 == 0)
    const float* expand_gain = nullptr;  // expand0's norm [64]
    const uint8_t* w_expand = nullptr;   // e4m3 [128, 64]
    const float* scale_expand = nullptr;
    const float* bias_expand = nullptr;
    const uint8_t* w_skip = nullptr;     // e4m3 [32, 32] (K zero-padded from 16)
    const float* scale_skip = nullptr;
    const float* bias_skip = nullptr;
    HeadWeights head_w;                  // the head norm, head.linear (and the head MLP)
    swinup_precision precision = SWINUP_PRECISION_EXACT;
    float* head = nullptr;               // f32 [2 h1][2 w1][16]
    uint16_t* d0 = nullptr;              // optional (tests' layer hook): f16 [2 h1][2 w1][32]
};

// Whether this device's per-block shared memory holds the kernel's 16 warps (202 KiB; with the
// head MLP's weights 214.3 KiB: sm_90 yes (227 KiB), sm_89 no; the network then keeps the
// layer-by-layer launches).
bool lite_tail_fused_supported(bool head_mlp);

// Checks the preconditions (throws std::invalid_argument naming the field) and launches.
void lite_tail_fused(const LiteTailArgs& args, cudaStream_t stream);

}  // namespace swinup::cuda
