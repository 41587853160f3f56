// RMSNorm + e4m3 encoding (model-spec.md): per token,
//   ms = (sum over c in channel order of x[c]^2, in f32) / C
//   y[c] = (x[c] * (1 / sqrt(ms + 2^-13))) * gain[c]  -> e4m3
// exact: mul/add/div/sqrt with IEEE rounding (exact_math.h); fast: the same sum, rsqrt.approx.
// The input is the f16 residual stream; a merge normalises the 4C concatenation of 2x2 fine tokens
// (index (dy * 2 + dx) * C + c), gathered on the fly.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "swinup/swinup.h"

namespace swinup::cuda {

enum class NormGather {
    rows,            // token m reads x[m, 0..C)
    space_to_depth,  // token m of the coarse grid reads the 2x2 fine tokens' C channels each
};

struct RmsNormArgs {
    const uint16_t* x = nullptr;  // f16 bits, fine-grid tokens x channels
    int channels = 0;             // C of x; % 8 == 0
    NormGather gather = NormGather::rows;
    int tokens = 0;               // output tokens
    int grid_width = 0;           // output-grid width (space_to_depth)
    const float* gain = nullptr;  // [C] or [4C]
    uint8_t* out = nullptr;       // e4m3, tokens x (C or 4C)
    swinup_precision precision = SWINUP_PRECISION_EXACT;
};

void rms_norm_e4m3(const RmsNormArgs& args, cudaStream_t stream);

}  // namespace swinup::cuda
