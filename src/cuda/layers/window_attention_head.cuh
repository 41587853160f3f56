// One head of one window's attention, computed by one warp (model-spec.md, "The Swin block"):
//   s_ij = q_i . k_j (mma.sync.m16n8k16 f16 -> f32), s_ij = s_ij * (1/sqrt(d)) + f32(rel_bias[i, j]),
//   masked keys excluded, m_i = max_j s_ij, p_ij = f16(exp2((s_ij - m_i) * log2e)),
//   l_i = sum_j p_ij (f32, j = 0..15 in order), o_i = (sum_j p_ij v_j) / l_i -> e4m3.
// The layer-by-layer kernel (window_attention.cu, Q K V rows in device memory) and the fused
// attention block (attention_fused.cu, the rows in shared memory) both call this one definition,
// so their outputs are the same bytes whatever memory the rows sit in.
#pragma once

#include <cstdint>

#include "numeric/exact_math.h"
#include "model/model_spec.h"
#include "cuda/device/device_math.cuh"
#include "cuda/device/mma.cuh"
#include "swinup/swinup.h"

namespace swinup::cuda {

// Two f16 at channel `dim` (even) of a row, zero past the head dim (d = 24's padding to 32).
template <int kD>
__device__ __forceinline__ uint32_t head_pair(const uint16_t* row, int dim) {
    return dim < kD ? *reinterpret_cast<const uint32_t*>(row + dim) : 0u;
}

// The warp's lanes (g = lane / 4, t = lane % 4) pass:
//   q_lo, q_hi: this head's Q of window tokens g and g + 8 (K follows at + channels: the keys of
//               the S fragments' columns g and g + 8 are the same tokens);
//   v: this head's V of window tokens 2t, 2t + 1, 8 + 2t, 9 + 2t (the B fragment rows of P V);
//   bias: this head's f16 [16][16] table (query, key); mask: bit j set when query g (mask[0]) or
//   g + 8 (mask[1]) attends to key j;
//   out_lo, out_hi: this head's e4m3 output columns of tokens g and g + 8.
// Head dims 16, 24 (zero-padded to 32 for Q K^T) and 32.
template <int kD>
__device__ __forceinline__ void attend_window_head(const uint16_t* q_lo, const uint16_t* q_hi,
                                                   const uint16_t* const (&v)[4], int channels,
                                                   const uint16_t* bias, const uint32_t (&mask)[2],
                                                   swinup_precision precision, uint8_t* out_lo, uint8_t* out_hi) {
    static_assert(kD == 16 || kD == 24 || kD == 32, "head dims of the v1 network");
    constexpr int kKSteps = (kD + 15) / 16;  // k16 steps of Q K^T
    constexpr int kDimTiles = kD / 8;        // n8 tiles of P V
    const int lane = static_cast<int>(threadIdx.x) % 32, g = lane >> 2, t = lane & 3;

    // S = Q K^T: (16 queries, 16 keys) as two n8 tiles: s[nt][0..1] query g keys 8nt + 2t, +1;
    // s[nt][2..3] query g + 8.
    float s[2][4] = {};
#pragma unroll
    for (int ks = 0; ks < kKSteps; ++ks) {
        const int d0 = 16 * ks + 2 * t, d1 = d0 + 8;
        const uint32_t a[4] = {head_pair<kD>(q_lo, d0), head_pair<kD>(q_hi, d0), head_pair<kD>(q_lo, d1),
                               head_pair<kD>(q_hi, d1)};
        const uint16_t* k_lo = q_lo + channels;
        const uint16_t* k_hi = q_hi + channels;
        mma_m16n8k16_f16(s[0], a, head_pair<kD>(k_lo, d0), head_pair<kD>(k_lo, d1));
        mma_m16n8k16_f16(s[1], a, head_pair<kD>(k_hi, d0), head_pair<kD>(k_hi, d1));
    }

    const bool exact_mode = precision == SWINUP_PRECISION_EXACT;
    const float inv_sqrt_d = exact::div(1.0f, exact::sqrt(static_cast<float>(kD)));
    float m[2] = {-3.0e38f, -3.0e38f};  // per row (g, g + 8), as the CPU starts
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int r = e >> 1, i = g + 8 * r, j = 8 * nt + 2 * t + (e & 1);
            s[nt][e] = exact::add(exact::mul(s[nt][e], inv_sqrt_d), f16_to_f32(bias[i * kWindowTokens + j]));
            if ((mask[r] >> j & 1u) && s[nt][e] > m[r]) m[r] = s[nt][e];
        }
#pragma unroll
    for (int r = 0; r < 2; ++r) {  // the row's max over its quad (max is order-free)
        m[r] = fmaxf(m[r], __shfl_xor_sync(0xffffffffu, m[r], 1));
        m[r] = fmaxf(m[r], __shfl_xor_sync(0xffffffffu, m[r], 2));
    }
    // P in f16, packed as the A fragment of P V: p_pack[nt][r] = (row g + 8r, keys 8nt + 2t, +1).
    uint32_t p_pack[2][2];
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float pe[2];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int j = 8 * nt + 2 * t + h;
                const float x = exact::mul(exact::sub(s[nt][2 * r + h], m[r]), exact::kLog2e);
                pe[h] = (mask[r] >> j & 1u) ? (exact_mode ? exact::exp2(x) : fast_exp2(x)) : 0.0f;
            }
            p_pack[nt][r] = f16x2(pe[0], pe[1]);
        }
    // l = sum_j p_j in key order: key 8nt + 2tt (+1) sits in lane (g, tt).
    float l[2] = {0.0f, 0.0f};
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int tt = 0; tt < 4; ++tt)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const uint32_t w = __shfl_sync(0xffffffffu, p_pack[nt][r], (lane & ~3) | tt);
                l[r] = exact::add(exact::add(l[r], f16_lo(w)), f16_hi(w));
            }

    // O = P V: A = P (16 queries, 16 keys), B = V (16 keys, d): b0 keys 2t, 2t+1, b1 keys 8+2t, 9+2t.
    const uint32_t a[4] = {p_pack[0][0], p_pack[0][1], p_pack[1][0], p_pack[1][1]};
#pragma unroll
    for (int dt = 0; dt < kDimTiles; ++dt) {
        const int dim = 8 * dt + g;
        const uint32_t b0 = static_cast<uint32_t>(v[0][dim]) | (static_cast<uint32_t>(v[1][dim]) << 16);
        const uint32_t b1 = static_cast<uint32_t>(v[2][dim]) | (static_cast<uint32_t>(v[3][dim]) << 16);
        float o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        mma_m16n8k16_f16(o, a, b0, b1);
        float y[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const float lr = l[e >> 1];
            y[e] = exact_mode ? exact::div(o[e], lr) : o[e] * fast_rcp(lr);
        }
        const int col = 8 * dt + 2 * t;
        *reinterpret_cast<uint16_t*>(out_lo + col) = e4m3x2(y[0], y[1]);
        *reinterpret_cast<uint16_t*>(out_hi + col) = e4m3x2(y[2], y[3]);
    }
}

}  // namespace swinup::cuda
