#include "cuda/fused/block_fused.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "model/model_spec.h"
#include "model/window_map.h"
#include "cuda/device/cta_warps.cuh"
#include "cuda/device/persistent_tile_loop.cuh"
#include "cuda/device/warp_tile_mma.cuh"
#include "cuda/fused/attention_half.cuh"
#include "cuda/fused/mlp_half.cuh"
#include "cuda/fused/warp_token_rows.cuh"

namespace swinup::cuda {
namespace {

// Fewer warps than this and a CTA's weight staging (and its share of the SM) buys too little: the
// MLP half kernel's floor too.
constexpr int kMinWarps = 4;

// Shared memory of a CTA: the attention half's operands (Wqkv [3C][C + 16], Wproj [C][C + 16],
// their scale/bias pairs, norm1's gains) and then the MLP half's (W1 [4C][C + 16],
// W2 [C][4C + 16], their scale/bias pairs, norm2's gains), each BlockCtaOperands, staged once.
// Then per warp: kXBuffers buffers of the window's f16 token rows [16][2C + 16], the e4m3 rows
// [16][C + 16] (norm1's output, then the attention output) and the f16 Q K V rows [16][6C + 16],
// which the MLP half then takes as its hidden rows [16][4C + 16] (first norm2's output): Q K V
// are dead once proj has run, and 4C + 16 <= 6C + 16.
//
// Bytes (CTA + per warp) and warps per CTA, sm_90 (227 KiB a block, 228 KiB an SM) / sm_89
// (99 KiB a block, 100 KiB an SM):
//   C = 32: 19,456 + 6,656 (two row buffers); 14 warps, 112,640 bytes, so that two CTAs share an
//           SM (28 warps an SM; 16 warps would leave one CTA of 16) / 12 warps, 99,328 bytes.
//   C = 64: 63,488 + 9,984 (one row buffer: 16 warps instead of 13 with two, at level 1 of a
//           720p frame 7 rounds of windows instead of 9); 16 warps, 223,232 bytes / 3 warps:
//           too few, not supported (the two half kernels run).
//   C = 96: 132,096 + 14,592 (one row buffer: 6 warps instead of 5); 6 warps, 219,648 bytes /
//           the weights alone exceed 99 KiB: not supported. 6 warps an SM against the half
//           kernels' 9 and 11: whether the saved round trip outweighs the lower occupancy is what
//           `swinup bench --detail` with and without `--with block` shows for enc2 / dec2.
// Registers (ptxas -v, sm_90, CUDA 13.0; no spills, no stack): C = 32 72 (the bound of two
// 448-thread CTAs an SM), C = 64 128 (16 warps: 4 a scheduler, 16,384 registers each), C = 96
// 238 (6 warps). Each half kernel alone takes 64 / 97 / 168 (attention) and 64 / 83 / 102 (MLP).
template <int kC>
struct BlockLayout {
    using Attention = AttentionHalf<kC>;
    using Mlp = MlpHalf<kC, 1>;
    static_assert(Attention::kXStride == Mlp::kXStride && Attention::kXBufBytes == Mlp::kXBufBytes,
                  "both halves read the same f16 rows");
    static_assert(Mlp::kHBytes <= Attention::kQkvBytes, "the hidden rows fit where Q K V were");
    static constexpr int kCtaBytes = Attention::Operands::kBytes + Mlp::Operands::kBytes;
    static constexpr int kXBufBytes = Attention::kXBufBytes;
    static constexpr int kXBuffers = kC >= 64 ? 1 : 2;
    static constexpr int kWarpBytes = kXBuffers * kXBufBytes + Attention::kABytes + Attention::kQkvBytes;
    static_assert(kCtaBytes % 16 == 0 && kWarpBytes % 16 == 0, "16-byte aligned regions");
    // C = 32: two CTAs an SM on sm_90 (2 x (kCtaBytes + 14 kWarpBytes) + 2 KiB reserved <= 228 KiB).
    static constexpr int kCtasPerSm = kC == 32 ? 2 : 1;
    static constexpr int kWarpCap = kC == 32 ? 14 : kMaxCtaWarps;
    static constexpr int kMaxWarpsAnyDevice = max_cta_warps_any_device(kCtaBytes, kWarpBytes) < kWarpCap
                                                  ? max_cta_warps_any_device(kCtaBytes, kWarpBytes)
                                                  : kWarpCap;
    static_assert(kCtasPerSm * (kCtaBytes + kMaxWarpsAnyDevice * kWarpBytes + 1024) <= 228 * 1024,
                  "the CTAs an SM is meant to hold fit its shared memory");
};

// One CTA keeps the block's four weight matrices, their scales and biases and both norms' gains
// in shared memory; each warp independently walks windows (persistent_tile_loop.cuh: warp-level
// grid stride; with two buffers its next window's rows are copied while it computes the
// current one) through the attention half and then the MLP half on the same rows, and stores the
// rows to their tokens once. Only __syncwarp between the steps: a window's tokens are the warp's
// own, in both halves.
template <int kC, int kHeads>
__global__ void __launch_bounds__(BlockLayout<kC>::kMaxWarpsAnyDevice * 32, BlockLayout<kC>::kCtasPerSm)
    block_fused_kernel(const BlockFusedArgs p) {
    using L = BlockLayout<kC>;
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    const typename L::Attention::Operands attention(smem);
    const typename L::Mlp::Operands mlp(smem + L::Attention::Operands::kBytes);
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int warps = static_cast<int>(blockDim.x) / 32;
    uint8_t* x_base = smem + L::kCtaBytes + warp * L::kWarpBytes;  // kXBuffers buffers, then a_s, qkv_s

    const AttentionBlockArgs& pa = p.attention;
    const MlpArgs& pm = p.mlp;
    attention.stage(pa.norm_gain, pa.w_qkv, pa.scale_qkv, pa.bias_qkv, pa.w_proj, pa.scale_proj, pa.bias_proj);
    mlp.stage(pm.norm_gain, pm.w1, pm.scale1, pm.bias1, pm.w2, pm.scale2, pm.bias2);

    auto load = [&](int window, int buf) { load_window_rows<kC>(pa, window, x_base + buf * L::kXBufBytes, lane); };
    auto compute = [&](int window, int buf) {
        // The warp's addresses and fragment positions are derived again for each window from a
        // thread index the compiler cannot see is loop-invariant: hoisted out of the window loop,
        // the attention half's and the MLP half's address sets would both stay live through both
        // halves (ptxas -v: C = 64 spilled 20 bytes at its 128 registers, C = 32 40 bytes at 72;
        // re-derived, neither spills).
        unsigned tid;
        asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid));
        const int w_lane = static_cast<int>(tid % 32);
        const int w_g = w_lane >> 2, w_t = w_lane & 3;
        const FragmentRows w_f = fragment_rows(w_lane);
        uint8_t* w_base = smem + L::kCtaBytes + static_cast<int>(tid / 32) * L::kWarpBytes;
        uint8_t* x_s = w_base + buf * L::kXBufBytes;
        uint8_t* a_s = w_base + L::kXBuffers * L::kXBufBytes;  // norm1 output, then attention output
        uint8_t* qkv_s = a_s + L::Attention::kABytes;          // Q K V, then norm2 output and hidden rows
        attention_half_window<kC, kHeads>(pa, attention, window, x_s, a_s, qkv_s, w_lane, w_g, w_t, w_f);
        // x + attention complete in x_s before norm2 reads it; proj has read a_s and the heads
        // Q K V before the MLP half overwrites them.
        __syncwarp();
        mlp_half_tile<kC, 1>(mlp, pa.precision, x_s, qkv_s, w_lane, w_g, w_t, w_f);
        __syncwarp();
        // The window's rows (x + attention + mlp) back to their tokens.
        store_token_rows16<kC>(pa.x, x_s, L::Attention::kXStride, w_lane, [&](int r) {
            return RowToken{window_token_index(window, r, pa.width, pa.height, pa.shifted), true};
        });
    };
    persistent_tile_loop<L::kXBuffers, TileWalker::warp>(static_cast<int>(blockIdx.x) * warps + warp,
                                                         static_cast<int>(gridDim.x) * warps,
                                                         window_count(pa.width, pa.height), load, compute);
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("block_fused: ") + what);
}

template <int kC>
int warps_for_device() {
    return cta_warps_for_device<BlockLayout<kC>>();
}

template <int kC, int kHeads>
void launch(const BlockFusedArgs& p, cudaStream_t stream) {
    launch_cta_warps<BlockLayout<kC>>(block_fused_kernel<kC, kHeads>, p, kMinWarps,
                                      window_count(p.attention.width, p.attention.height), "block_fused", stream);
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

bool block_fused_supported(int channels, int heads) {
    if (channels == 32 && heads == 2) return warps_for_device<32>() >= kMinWarps;
    if (channels == 64 && heads == 2) return warps_for_device<64>() >= kMinWarps;
    if (channels == 96 && heads == 4) return warps_for_device<96>() >= kMinWarps;
    return false;
}

void block_fused(const BlockFusedArgs& p, cudaStream_t stream) {
    const AttentionBlockArgs& a = p.attention;
    const MlpArgs& m = p.mlp;
    require(a.x && a.norm_gain && a.w_qkv && a.scale_qkv && a.bias_qkv && a.rel_bias && a.w_proj && a.scale_proj &&
                a.bias_proj,
            "null attention operand");
    require(m.norm_gain && m.w1 && m.scale1 && m.bias1 && m.w2 && m.scale2 && m.bias2, "null mlp operand");
    require(a.width > 0 && a.height > 0 && a.width % kWindow == 0 && a.height % kWindow == 0,
            "the grid must be a positive multiple of 4 tokens in each direction");
    require(m.x == a.x, "mlp.x must be attention.x (one residual stream)");
    require(static_cast<long long>(m.m) == static_cast<long long>(a.width) * a.height,
            "mlp.m must be attention.width * attention.height");
    require(m.channels == a.channels, "mlp.channels must be attention.channels");
    require(m.precision == a.precision, "mlp.precision must be attention.precision");
    require(aligned16(a.x), "x must be 16-byte aligned (16-byte rows)");
    require(aligned16(a.w_qkv) && aligned16(a.w_proj) && aligned16(m.w1) && aligned16(m.w2),
            "the weights must be 16-byte aligned");
    require(block_fused_supported(a.channels, a.heads), "unsupported (channels, heads) (see block_fused_supported)");
    switch (a.channels) {
        case 32: launch<32, 2>(p, stream); break;
        case 64: launch<64, 2>(p, stream); break;
        case 96: launch<96, 4>(p, stream); break;
    }
}

}  // namespace swinup::cuda
