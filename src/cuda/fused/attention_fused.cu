#include "cuda/fused/attention_fused.cuh"

#include <stdexcept>
#include <string>

#include "numeric/exact_math.h"
#include "model/model_spec.h"
#include "model/window_map.h"
#include "cuda/device/cp_async.cuh"
#include "cuda/device/cta_warps.cuh"
#include "cuda/fused/block_cta_operands.cuh"
#include "cuda/fused/warp_token_rows.cuh"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_math.cuh"
#include "cuda/device/persistent_grid.cuh"
#include "cuda/device/persistent_tile_loop.cuh"
#include "cuda/layers/rms_norm_row.cuh"
#include "cuda/device/warp_tile_mma.cuh"
#include "cuda/layers/window_attention_head.cuh"

namespace swinup::cuda {
namespace {

// Shared rows are padded by 16 bytes (as in gemm_e4m3.cu and mlp_fused.cu): every row stride
// below is an odd number of 16-byte units, so the 8 rows of an ldmatrix phase hit 8 different
// bank quads, and the fragment owners' 4-byte accesses (row g, word t) land on banks 4g + t.
constexpr int kRowPad = 16;
constexpr int kMinWarps = 2;

// Shared memory of a CTA. Shared by its warps, loaded once: Wqkv [3C][C + 16], Wproj [C][C + 16],
// (scale, scale, bias, bias) per column pair of qkv and of proj, norm1's gains. Then per warp: two
// buffers of its window's 16 f16 token rows [16][2C + 16] (cp.async double buffer; they also
// take the residual add in place before the store; one buffer at C = 128), the e4m3 rows [16][C + 16] that hold norm1's
// output (qkv's A) and then the attention output (proj's A), and the f16 Q K V rows [16][6C + 16].
template <int kC>
struct AttentionLayout {
    static_assert(kC % 32 == 0, "C must be a multiple of the K chunk");
    using Operands = BlockCtaOperands<3 * kC, kC, kC, kC, kRowPad>;  // norm1, qkv, proj
    static constexpr int kWStride = Operands::kStride1;
    static_assert(Operands::kStride2 == kWStride, "Wqkv and Wproj rows alike");
    static constexpr int kXStride = 2 * kC + kRowPad;
    static constexpr int kAStride = kC + kRowPad;
    static constexpr int kQkvStride = 6 * kC + kRowPad;
    static constexpr int kCtaBytes = Operands::kBytes;
    static constexpr int kXBufBytes = 16 * kXStride;
    // C = 128 (the tube, ~900 windows at 720p): one row buffer, so that 8 warps fit per SM (the
    // H200's 132 x 8 warps then take every window in one round; with two buffers, 6 warps a CTA
    // left a second round of windows). Elsewhere two (the next window's copy overlaps the current).
    static constexpr int kXBuffers = kC >= 128 ? 1 : 2;
    static constexpr int kWarpBytes = kXBuffers * kXBufBytes + 16 * kAStride + 16 * kQkvStride;
    static_assert(kCtaBytes % 16 == 0 && kWarpBytes % 16 == 0, "16-byte aligned regions");
    // The most warps a CTA can have on any supported device (sm_90's 227 KiB per block; sm_89's
    // 99 KiB allow fewer): the launch bound, so that C = 96 and 128 (9 and 6 warps) may use more
    // than 128 registers instead of spilling.
    static constexpr int kMaxWarpsAnyDevice = max_cta_warps_any_device(kCtaBytes, kWarpBytes);
};

// Issues the copies of window `window`'s 16 f16 token rows (window_map.h's roll for a shifted
// block) into x_s, row r = window token r (one warp).
template <int kC>
__device__ __forceinline__ void load_window_rows(const AttentionBlockArgs& p, int window, uint8_t* x_s, int lane) {
    using L = AttentionLayout<kC>;
    constexpr int kChunks = 2 * kC / 16;  // 16-byte pieces per row
    for (int i = lane; i < 16 * kChunks; i += 32) {
        const int r = i / kChunks, c = i - r * kChunks;
        const int token = window_token_index(window, r, p.width, p.height, p.shifted);
        cp_async_16(x_s + r * L::kXStride + c * 16, p.x + static_cast<size_t>(token) * kC + c * 8, 16);
    }
}

// One CTA keeps Wqkv, Wproj and their scales and biases in shared memory; each warp independently
// walks windows (persistent_tile_loop.cuh: warp-level grid stride, its next window's rows copied
// while it computes the current one) through norm1, qkv -> f16 Q K V rows, the heads' attention ->
// e4m3 rows, proj + residual. Only __syncwarp between the steps: a window's 16 tokens are its own.
template <int kC, int kHeads>
__global__ void __launch_bounds__(AttentionLayout<kC>::kMaxWarpsAnyDevice * 32) attention_fused_kernel(const AttentionBlockArgs p) {
    using L = AttentionLayout<kC>;
    constexpr int kD = kC / kHeads;
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    const typename L::Operands cta(smem);
    uint8_t* wqkv_s = cta.w1_s;
    uint8_t* wproj_s = cta.w2_s;
    const float4* sbq_s = cta.sb1_s;
    const float4* sbp_s = cta.sb2_s;
    const float* gain_s = cta.gain_s;
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int warps = static_cast<int>(blockDim.x) / 32;
    uint8_t* x_base = smem + L::kCtaBytes + warp * L::kWarpBytes;  // kXBuffers buffers
    uint8_t* a_s = x_base + L::kXBuffers * L::kXBufBytes;           // norm1 output, then attention output
    uint8_t* qkv_s = a_s + 16 * L::kAStride;

    cta.stage(p.norm_gain, p.w_qkv, p.scale_qkv, p.bias_qkv, p.w_proj, p.scale_proj, p.bias_proj);

    const int g = lane >> 2, t = lane & 3;
    const FragmentRows f = fragment_rows(lane);
    auto load = [&](int window, int buf) { load_window_rows<kC>(p, window, x_base + buf * L::kXBufBytes, lane); };
    auto compute = [&](int window, int buf) {
        uint8_t* x_s = x_base + buf * L::kXBufBytes;

        // norm1 -> qkv's A (16 x C e4m3), then into registers.
        rms_normalise_tile16<kC>(x_s, L::kXStride, gain_s, a_s, L::kAStride, p.precision, lane);
        __syncwarp();
        uint32_t a[kC / 32][4];
        load_a_fragments<kC / 32>(a, a_s, L::kAStride, f);

        // qkv -> f16 rows (the GEMM's store_f16 epilogue), each fragment owner its own pairs.
        for (int n0 = 0; n0 < 3 * kC; n0 += 16) {
            float acc[2][4];
            mma_step16<kC / 32>(acc, a, wqkv_s, L::kWStride, n0, f);
            scale_bias_step16(acc, sbq_s, n0, n0, g, t, [&](int row, int col, float y0, float y1) {
                *reinterpret_cast<uint32_t*>(qkv_s + row * L::kQkvStride + col * 2) = f16x2(y0, y1);
            });
        }
        __syncwarp();  // Q K V complete, and norm1's rows read, before the heads overwrite a_s

        // The heads, one after the other, each window_attention's arithmetic -> e4m3 rows a_s.
        const bool masked = window_has_mask(window, p.width, p.height, p.shifted);
        const uint32_t mask[2] = {masked ? window_key_mask(window, g, p.width, p.height, p.shifted) : 0xffffu,
                                  masked ? window_key_mask(window, g + 8, p.width, p.height, p.shifted) : 0xffffu};
        const uint16_t* q_lo = reinterpret_cast<const uint16_t*>(qkv_s + g * L::kQkvStride);
        const uint16_t* q_hi = reinterpret_cast<const uint16_t*>(qkv_s + (g + 8) * L::kQkvStride);
#pragma unroll 1
        for (int head = 0; head < kHeads; ++head) {
            const uint16_t* v[4];
#pragma unroll
            for (int k = 0; k < 4; ++k)
                v[k] = reinterpret_cast<const uint16_t*>(qkv_s + (2 * t + (k & 1) + 8 * (k >> 1)) * L::kQkvStride) +
                       2 * kC + head * kD;
            attend_window_head<kD>(q_lo + head * kD, q_hi + head * kD, v, kC,
                                   p.rel_bias + head * kWindowTokens * kWindowTokens, mask, p.precision,
                                   a_s + g * L::kAStride + head * kD, a_s + (g + 8) * L::kAStride + head * kD);
        }
        __syncwarp();  // attention rows complete before proj reads them

        // proj: all C / 16 column steps at once; residual epilogue in place in the window's f16
        // rows (the x that norm1 read, the value the unfused proj reads from device memory).
        float acc[kC / 16][2][4];
        mma_all_steps<kC, kC / 16>(acc, a_s, L::kAStride, wproj_s, L::kWStride, f);
        residual_add_f16_rows<kC / 16>(acc, x_s, L::kXStride, sbp_s, g, t);
        __syncwarp();
        // The window's rows back to their tokens.
        store_token_rows16<kC>(p.x, x_s, L::kXStride, lane, [&](int r) {
            return RowToken{window_token_index(window, r, p.width, p.height, p.shifted), true};
        });
    };
    persistent_tile_loop<L::kXBuffers, TileWalker::warp>(static_cast<int>(blockIdx.x) * warps + warp,
                                                         static_cast<int>(gridDim.x) * warps,
                                                         window_count(p.width, p.height), load, compute);
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("attention_fused: ") + what);
}

// Warps per CTA: as many as the device's per-block shared memory holds, up to 16. H200 (227 KiB):
// C = 32 16 warps (2 CTAs per SM), C = 64 16 warps, C = 96 9 warps, C = 128 8 warps (one row buffer).
template <int kC>
int warps_for_device() {
    return cta_warps_for_device<AttentionLayout<kC>>();
}

template <int kC, int kHeads>
void launch(const AttentionBlockArgs& p, cudaStream_t stream) {
    launch_cta_warps<AttentionLayout<kC>>(attention_fused_kernel<kC, kHeads>, p, kMinWarps,
                                          window_count(p.width, p.height), "attention_fused", stream);
}

}  // namespace

bool attention_fused_supported(int channels, int heads) {
    if (channels == 32 && heads == 2) return warps_for_device<32>() >= kMinWarps;
    if (channels == 64 && heads == 2) return warps_for_device<64>() >= kMinWarps;
    if (channels == 96 && heads == 4) return warps_for_device<96>() >= kMinWarps;
    if (channels == 128 && heads == 4) return warps_for_device<128>() >= kMinWarps;
    return false;
}

void attention_fused(const AttentionBlockArgs& p, cudaStream_t stream) {
    require(p.x && p.norm_gain && p.w_qkv && p.scale_qkv && p.bias_qkv && p.rel_bias && p.w_proj && p.scale_proj &&
                p.bias_proj,
            "null operand");
    require(p.width > 0 && p.height > 0 && p.width % kWindow == 0 && p.height % kWindow == 0,
            "the grid must be a positive multiple of 4 tokens in each direction");
    require(reinterpret_cast<uintptr_t>(p.x) % 16 == 0, "x must be 16-byte aligned (16-byte rows)");
    require(reinterpret_cast<uintptr_t>(p.w_qkv) % 16 == 0 && reinterpret_cast<uintptr_t>(p.w_proj) % 16 == 0,
            "the weights must be 16-byte aligned");
    require(attention_fused_supported(p.channels, p.heads),
            "unsupported (channels, heads) (see attention_fused_supported)");
    switch (p.channels) {
        case 32: launch<32, 2>(p, stream); break;
        case 64: launch<64, 2>(p, stream); break;
        case 96: launch<96, 4>(p, stream); break;
        case 128: launch<128, 4>(p, stream); break;
    }
}

}  // namespace swinup::cuda
