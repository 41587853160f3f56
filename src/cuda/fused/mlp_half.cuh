// A Swin block's MLP half on a 16-token tile, computed by one warp from shared memory:
// x = x + fc2(GELU(fc1(norm2(x)))) on the tile's 16 f16 token rows, in place. Written once for
// the two kernels that run it: mlp_fused.cu (16 consecutive tokens a tile, a kernel per half) and
// block_fused.cu (a window's 16 tokens, after the attention half on the same rows), so the two
// cannot drift apart; test_cuda_fusion compares both with the layer-by-layer launches.
//
// The MLP is per token and an mma output depends on its row's and column's operands only, so
// which tokens share a tile, and at which fragment row, does not change a byte.
#pragma once

#include <cstdint>

#include "cuda/device/cp_async.cuh"
#include "cuda/device/device_math.cuh"
#include "cuda/device/warp_tile_mma.cuh"
#include "cuda/fused/block_cta_operands.cuh"
#include "cuda/fused/mlp_fused.cuh"
#include "cuda/layers/rms_norm_row.cuh"
#include "swinup/swinup.h"

namespace swinup::cuda {

// The half's shared-memory shapes. Rows are padded by 16 bytes, as in gemm_e4m3.cu: every row
// stride below is an odd number of 16-byte units, so the 8 rows of an ldmatrix phase (or of a
// quarter-warp's 16-byte accesses) hit 8 different bank quads.
//   CTA (Operands, loaded once, read by every warp): W1 [4C][C + 16], W2 [C][4C + 16],
//     (scale, scale, bias, bias) per column pair of fc1 and of fc2, norm2's gains;
//   per warp: the tile's f16 token rows [16][2C + 16] (kXBufBytes; they hold the residual for
//     fc2's epilogue and take its result in place) and the e4m3 hidden rows [16][4C / kParts + 16]
//     (kHBytes), whose start first holds the normalised rows [16][C + 16] (fc1's A, read into
//     registers before the hidden rows are written).
// kParts = 2 computes the hidden width in two parts (fc1 of part 0, fc2's K chunks of part 0,
// fc1 of part 1, fc2's K chunks of part 1: each accumulator still takes its chunks in increasing
// order), halving the hidden rows.
template <int kC, int kParts>
struct MlpHalf {
    static_assert(kC % 32 == 0, "C must be a multiple of the K chunk");
    static_assert(kParts == 1 || kParts == 2, "the hidden width whole or in two parts");
    static constexpr int kRowPad = 16;
    static constexpr int kHidden = 4 * kC;
    using Operands = BlockCtaOperands<kHidden, kC, kC, kHidden, kRowPad>;  // norm2, fc1, fc2
    static constexpr int kW1Stride = Operands::kStride1;
    static constexpr int kW2Stride = Operands::kStride2;
    static constexpr int kXStride = 2 * kC + kRowPad;
    static constexpr int kAStride = kC + kRowPad;
    static constexpr int kPart = kHidden / kParts;  // hidden columns computed at a time
    static constexpr int kHStride = kPart + kRowPad;
    static constexpr int kXBufBytes = 16 * kXStride;
    static constexpr int kHBytes = 16 * kHStride;
    static_assert(16 * kAStride <= kHBytes, "the normalised rows fit in the hidden rows' space");
    static_assert(Operands::kBytes % 16 == 0 && kXBufBytes % 16 == 0 && kHBytes % 16 == 0,
                  "16-byte aligned regions");
};

// Issues the copies of 16-token tile `tile`'s f16 rows into x_s (MlpHalf::kXStride), zero-filled
// past m: kThreads threads together (a warp, or a team of warps: mlp_team.cu), `lane` being the
// thread's index among them.
template <int kC, int kThreads = 32>
__device__ __forceinline__ void load_tile_rows(const MlpArgs& p, int tile, uint8_t* x_s, int lane) {
    constexpr int kXStride = MlpHalf<kC, 1>::kXStride;  // the rows' stride, whatever the parts
    constexpr int kChunks = 2 * kC / 16;                 // 16-byte pieces per row
    for (int i = lane; i < 16 * kChunks; i += kThreads) {
        const int r = i / kChunks, c = i - r * kChunks;
        const int m = tile * 16 + r;
        const bool real = m < p.m;
        const uint16_t* src = real ? p.x + static_cast<size_t>(m) * kC + c * 8 : p.x;
        cp_async_16(x_s + r * kXStride + c * 16, src, real ? 16 : 0);
    }
}

// The half on the tile whose rows x_s (MlpHalf::kXStride) the warp has in shared memory: on
// return x_s holds x + mlp, each element written by its fragment owner (the caller's __syncwarp
// publishes them to the warp). h_s: the warp's hidden rows; g = lane / 4, t = lane % 4 (the
// mma fragment owner's row and column pair), f = fragment_rows(lane), computed once per kernel.
//
// Fragment positions as in gemm_e4m3_kernel: tile row r at fragment row r; columns walked in
// 16-column steps from 0 (two n8 tiles, one ldmatrix.x4 of W), so column n sits at n % 16.
template <int kC, int kParts>
__device__ __forceinline__ void mlp_half_tile(const typename MlpHalf<kC, kParts>::Operands& cta,
                                              swinup_precision precision, uint8_t* x_s, uint8_t* h_s, int lane, int g, int t,
                                              const FragmentRows& f) {
    using H = MlpHalf<kC, kParts>;

    // norm2 -> fc1's A (16 x C e4m3), then into registers: the C / 32 chunks' fragments.
    rms_normalise_tile16<kC>(x_s, H::kXStride, cta.gain_s, h_s, H::kAStride, precision, lane);
    __syncwarp();
    uint32_t a1[kC / 32][4];
    load_a_fragments<kC / 32>(a1, h_s, H::kAStride, f);
    __syncwarp();  // the normalised rows are read before the hidden rows overwrite them

    // Per part: fc1 + GELU -> e4m3 hidden rows (the fragment owner applies the epilogue to its
    // own elements: rows g, g + 8; columns 2t, 2t + 1 of each n8 tile, stored as an e4m3
    // pair), then fc2's K chunks of those hidden columns, all C / 16 column steps at once (one
    // A fragment of the hidden rows serves every step).
    float acc2[kC / 16][2][4];
    zero_accumulators(acc2);
#pragma unroll 1
    for (int part = 0; part < kParts; ++part) {
        if (part > 0) __syncwarp();  // fc2 has read the previous part's hidden rows
        // Four 16-column steps unrolled: their mma chains and epilogues interleave (measured on
        // the H200: lite fast 720p -> 4K 1.474 -> 1.460 ms; unroll 2: 1.466).
#pragma unroll 4
        for (int j0 = 0; j0 < H::kPart; j0 += 16) {  // local hidden column; global n0 + part offset
            const int n0 = part * H::kPart + j0;
            float acc[2][4];  // (n8 tile, fragment)
            mma_step16<kC / 32>(acc, a1, cta.w1_s, H::kW1Stride, n0, f);
            scale_bias_step16(acc, cta.sb1_s, n0, j0, g, t, [&](int row, int col, float y0, float y1) {
                *reinterpret_cast<uint16_t*>(h_s + row * H::kHStride + col) = gelu_e4m3x2(y0, y1, precision);
            });
        }
        __syncwarp();  // the part's hidden rows complete before fc2 reads them
        mma_all_steps_accumulate<H::kPart, kC / 16>(acc2, h_s, H::kHStride, cta.w2_s + part * H::kPart,
                                                     H::kW2Stride, f);
    }
    // Residual epilogue in place in the tile's f16 rows (the x that norm2 read, the value the
    // unfused fc2 reads from device memory): f16(f32(x) + y), each element by its owner.
    residual_add_f16_rows<kC / 16>(acc2, x_s, H::kXStride, cta.sb2_s, g, t);
}

}  // namespace swinup::cuda
