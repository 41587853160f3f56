// A Swin block's attention half on one window, computed by one warp from shared memory:
// x = x + proj(attention(qkv(norm1(x)))) on the window's 16 f16 token rows, in place. Written
// once for the two kernels that run it: attention_fused.cu (the half alone, a kernel per half)
// and block_fused.cu (followed by the MLP half on the same rows, a kernel per block), so the two
// cannot drift apart; test_cuda_fusion compares both with the layer-by-layer launches.
//
// The window's rows: row r = window token r (window_map.h, the shifted block's roll), a 16-row
// m16 tile. Steps, only __syncwarp between them (the window's tokens are the warp's own): norm1
// (rms_normalise_tile16) -> e4m3 rows a_s -> A fragments in registers -> qkv in 16-column steps
// with the GEMM's store_f16 epilogue -> f16 Q K V rows qkv_s -> each head by attend_window_head
// (window_attention_head.cuh, the layer-by-layer kernel's definition) -> e4m3 rows a_s -> proj,
// all C / 16 column steps at once -> the residual add in place in the f16 rows x_s.
#pragma once

#include <cstdint>

#include "model/model_spec.h"
#include "model/window_map.h"
#include "cuda/device/cp_async.cuh"
#include "cuda/device/warp_tile_mma.cuh"
#include "cuda/fused/attention_fused.cuh"
#include "cuda/fused/block_cta_operands.cuh"
#include "cuda/layers/rms_norm_row.cuh"
#include "cuda/layers/window_attention_head.cuh"

namespace swinup::cuda {

// The half's shared-memory shapes. Rows are padded by 16 bytes (as in gemm_e4m3.cu and
// mlp_half.cuh): every row stride below is an odd number of 16-byte units, so the 8 rows of an
// ldmatrix phase hit 8 different bank quads, and the fragment owners' 4-byte accesses (row g,
// word t) land on banks 4g + t.
//   CTA (Operands, loaded once, read by every warp): Wqkv [3C][C + 16], Wproj [C][C + 16],
//     (scale, scale, bias, bias) per column pair of qkv and of proj, norm1's gains;
//   per warp: the window's f16 token rows [16][2C + 16] (kXBufBytes; they take the residual add
//     in place), the e4m3 rows [16][C + 16] (kABytes: norm1's output, qkv's A, then the attention
//     output, proj's A) and the f16 Q K V rows [16][6C + 16] (kQkvBytes).
template <int kC>
struct AttentionHalf {
    static_assert(kC % 32 == 0, "C must be a multiple of the K chunk");
    static constexpr int kRowPad = 16;
    using Operands = BlockCtaOperands<3 * kC, kC, kC, kC, kRowPad>;  // norm1, qkv, proj
    static constexpr int kWStride = Operands::kStride1;
    static_assert(Operands::kStride2 == kWStride, "Wqkv and Wproj rows alike");
    static constexpr int kXStride = 2 * kC + kRowPad;
    static constexpr int kAStride = kC + kRowPad;
    static constexpr int kQkvStride = 6 * kC + kRowPad;
    static constexpr int kXBufBytes = 16 * kXStride;
    static constexpr int kABytes = 16 * kAStride;
    static constexpr int kQkvBytes = 16 * kQkvStride;
    static_assert(Operands::kBytes % 16 == 0 && kXBufBytes % 16 == 0 && kABytes % 16 == 0 && kQkvBytes % 16 == 0,
                  "16-byte aligned regions");
};

// Issues the copies of window `window`'s 16 f16 token rows (window_map.h's roll for a shifted
// block) into x_s, row r = window token r: kThreads threads together (a warp, or a team of warps:
// attention_team.cu), `lane` being the thread's index among them.
template <int kC, int kThreads = 32>
__device__ __forceinline__ void load_window_rows(const AttentionBlockArgs& p, int window, uint8_t* x_s, int lane) {
    using H = AttentionHalf<kC>;
    constexpr int kChunks = 2 * kC / 16;  // 16-byte pieces per row
    for (int i = lane; i < 16 * kChunks; i += kThreads) {
        const int r = i / kChunks, c = i - r * kChunks;
        const int token = window_token_index(window, r, p.width, p.height, p.shifted);
        cp_async_16(x_s + r * H::kXStride + c * 16, p.x + static_cast<size_t>(token) * kC + c * 8, 16);
    }
}

// Heads [first_head, first_head + heads) of window `window`, one after the other, by one warp:
// window_attention's arithmetic (attend_window_head) on the f16 Q K V rows qkv_s
// (AttentionHalf<kC>::kQkvStride) -> the heads' e4m3 columns of the rows a_s (kAStride). The one
// definition for the one-warp half (every head) and the team kernel (each warp its heads).
template <int kC, int kHeads>
__device__ __forceinline__ void attend_window_heads(const AttentionBlockArgs& p, int window, const uint8_t* qkv_s,
                                                    uint8_t* a_s, int first_head, int heads, int g, int t) {
    using H = AttentionHalf<kC>;
    constexpr int kD = kC / kHeads;
    const bool masked = window_has_mask(window, p.width, p.height, p.shifted);
    const uint32_t mask[2] = {masked ? window_key_mask(window, g, p.width, p.height, p.shifted) : 0xffffu,
                              masked ? window_key_mask(window, g + 8, p.width, p.height, p.shifted) : 0xffffu};
    const uint16_t* q_lo = reinterpret_cast<const uint16_t*>(qkv_s + g * H::kQkvStride);
    const uint16_t* q_hi = reinterpret_cast<const uint16_t*>(qkv_s + (g + 8) * H::kQkvStride);
#pragma unroll 1
    for (int head = first_head; head < first_head + heads; ++head) {
        const uint16_t* v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k)
            v[k] = reinterpret_cast<const uint16_t*>(qkv_s + (2 * t + (k & 1) + 8 * (k >> 1)) * H::kQkvStride) +
                   2 * kC + head * kD;
        attend_window_head<kD>(q_lo + head * kD, q_hi + head * kD, v, kC,
                               p.rel_bias + head * kWindowTokens * kWindowTokens, mask, p.precision,
                               a_s + g * H::kAStride + head * kD, a_s + (g + 8) * H::kAStride + head * kD);
    }
}

// The half on window `window` whose rows x_s (AttentionHalf<kC>::kXStride) the warp has in
// shared memory: on return x_s holds x + attention, each element written by its fragment owner
// (the caller's __syncwarp publishes them to the warp). p: the window grid, the shift, the
// relative position bias and the precision (the weights are read from cta); a_s, qkv_s: the
// warp's e4m3 and Q K V rows; g = lane / 4, t = lane % 4 (the mma fragment owner's row and
// column pair), f = fragment_rows(lane), computed once per kernel.
template <int kC, int kHeads>
__device__ __forceinline__ void attention_half_window(const AttentionBlockArgs& p,
                                                      const typename AttentionHalf<kC>::Operands& cta, int window,
                                                      uint8_t* x_s, uint8_t* a_s, uint8_t* qkv_s, int lane, int g,
                                                      int t, const FragmentRows& f) {
    using H = AttentionHalf<kC>;
    const uint8_t* wqkv_s = cta.w1_s;
    const uint8_t* wproj_s = cta.w2_s;
    const float4* sbq_s = cta.sb1_s;
    const float4* sbp_s = cta.sb2_s;

    // norm1 -> qkv's A (16 x C e4m3), then into registers.
    rms_normalise_tile16<kC>(x_s, H::kXStride, cta.gain_s, a_s, H::kAStride, p.precision, lane);
    __syncwarp();
    uint32_t a[kC / 32][4];
    load_a_fragments<kC / 32>(a, a_s, H::kAStride, f);

    // qkv -> f16 rows (the GEMM's store_f16 epilogue), each fragment owner its own pairs.
    for (int n0 = 0; n0 < 3 * kC; n0 += 16) {
        float acc[2][4];
        mma_step16<kC / 32>(acc, a, wqkv_s, H::kWStride, n0, f);
        scale_bias_step16(acc, sbq_s, n0, n0, g, t, [&](int row, int col, float y0, float y1) {
            *reinterpret_cast<uint32_t*>(qkv_s + row * H::kQkvStride + col * 2) = f16x2(y0, y1);
        });
    }
    __syncwarp();  // Q K V complete, and norm1's rows read, before the heads overwrite a_s

    // The heads, one after the other, each window_attention's arithmetic -> e4m3 rows a_s.
    attend_window_heads<kC, kHeads>(p, window, qkv_s, a_s, 0, kHeads, g, t);
    __syncwarp();  // attention rows complete before proj reads them

    // proj: all C / 16 column steps at once; residual epilogue in place in the window's f16
    // rows (the x that norm1 read, the value the unfused proj reads from device memory).
    float acc[kC / 16][2][4];
    mma_all_steps<kC, kC / 16>(acc, a_s, H::kAStride, wproj_s, H::kWStride, f);
    residual_add_f16_rows<kC / 16>(acc, x_s, H::kXStride, sbp_s, g, t);
}

}  // namespace swinup::cuda
