#include "cuda/window_attention.cuh"

#include <stdexcept>
#include <string>

#include "core/exact_math.h"
#include "core/model_spec.h"
#include "core/window_map.h"
#include "cuda/cuda_check.cuh"
#include "cuda/device_math.cuh"
#include "cuda/mma.cuh"

namespace swinup::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;

// Two f16 at channel `dim` (even) of a row, zero past the head dim (d = 24's padding to 32).
template <int kD>
__device__ __forceinline__ uint32_t load_pair(const uint16_t* row, int dim) {
    return dim < kD ? *reinterpret_cast<const uint32_t*>(row + dim) : 0u;
}

template <int kD>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) window_attention_kernel(const WindowAttentionArgs p) {
    static_assert(kD == 16 || kD == 24 || kD == 32, "head dims of the v1 network");
    constexpr int kKSteps = (kD + 15) / 16;  // k16 steps of Q K^T
    constexpr int kDimTiles = kD / 8;        // n8 tiles of P V
    const int pair = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    if (pair >= window_count(p.width, p.height) * p.heads) return;
    const int window = pair / p.heads, head = pair - window * p.heads;
    const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
    const int c3 = 3 * p.channels;

    // Rows g and g + 8 of the window: queries of the S and O fragments, keys of the K fragment.
    const int tok_lo = window_token_index(window, g, p.width, p.height, p.shifted);
    const int tok_hi = window_token_index(window, g + 8, p.width, p.height, p.shifted);
    const uint16_t* row_lo = p.qkv + static_cast<size_t>(tok_lo) * c3 + head * kD;
    const uint16_t* row_hi = p.qkv + static_cast<size_t>(tok_hi) * c3 + head * kD;

    // S = Q K^T: (16 queries, 16 keys) as two n8 tiles: s[nt][0..1] query g keys 8nt + 2t, +1;
    // s[nt][2..3] query g + 8.
    float s[2][4] = {};
#pragma unroll
    for (int ks = 0; ks < kKSteps; ++ks) {
        const int d0 = 16 * ks + 2 * t, d1 = d0 + 8;
        const uint32_t a[4] = {load_pair<kD>(row_lo, d0), load_pair<kD>(row_hi, d0),
                               load_pair<kD>(row_lo, d1), load_pair<kD>(row_hi, d1)};
        const uint16_t* k_lo = row_lo + p.channels;
        const uint16_t* k_hi = row_hi + p.channels;
        mma_m16n8k16_f16(s[0], a, load_pair<kD>(k_lo, d0), load_pair<kD>(k_lo, d1));
        mma_m16n8k16_f16(s[1], a, load_pair<kD>(k_hi, d0), load_pair<kD>(k_hi, d1));
    }

    const bool exact_mode = p.precision == SWINUP_PRECISION_EXACT;
    const float inv_sqrt_d = exact::div(1.0f, exact::sqrt(static_cast<float>(kD)));
    const bool masked = window_has_mask(window, p.width, p.height, p.shifted);
    const uint32_t mask[2] = {masked ? window_key_mask(window, g, p.width, p.height, p.shifted) : 0xffffu,
                              masked ? window_key_mask(window, g + 8, p.width, p.height, p.shifted) : 0xffffu};
    const uint16_t* bias = p.rel_bias + head * kWindowTokens * kWindowTokens;
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
    const uint16_t* v_row[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int key = 2 * t + (k & 1) + 8 * (k >> 1);
        v_row[k] = p.qkv + static_cast<size_t>(window_token_index(window, key, p.width, p.height, p.shifted)) * c3 +
                   2 * p.channels + head * kD;
    }
    uint8_t* out_lo = p.out + static_cast<size_t>(tok_lo) * p.channels + head * kD;
    uint8_t* out_hi = p.out + static_cast<size_t>(tok_hi) * p.channels + head * kD;
#pragma unroll
    for (int dt = 0; dt < kDimTiles; ++dt) {
        const int dim = 8 * dt + g;
        const uint32_t b0 = static_cast<uint32_t>(v_row[0][dim]) | (static_cast<uint32_t>(v_row[1][dim]) << 16);
        const uint32_t b1 = static_cast<uint32_t>(v_row[2][dim]) | (static_cast<uint32_t>(v_row[3][dim]) << 16);
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

}  // namespace

void window_attention(const WindowAttentionArgs& p, cudaStream_t stream) {
    auto require = [](bool ok, const char* what) {
        if (!ok) throw std::invalid_argument(std::string("window_attention: ") + what);
    };
    require(p.qkv && p.rel_bias && p.out, "null operand");
    require(p.width > 0 && p.height > 0 && p.width % kWindow == 0 && p.height % kWindow == 0,
            "the grid must be a positive multiple of 4 tokens in each direction");
    require(p.heads > 0 && p.channels % p.heads == 0, "channels must be a multiple of heads");
    const int pairs = window_count(p.width, p.height) * p.heads;
    const int blocks = (pairs + kWarpsPerBlock - 1) / kWarpsPerBlock;
    switch (p.channels / p.heads) {  // the head dim becomes the template argument here, once
        case 16: window_attention_kernel<16><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(p); break;
        case 24: window_attention_kernel<24><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(p); break;
        case 32: window_attention_kernel<32><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(p); break;
        default: require(false, "head dim must be 16, 24 or 32");
    }
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace swinup::cuda
