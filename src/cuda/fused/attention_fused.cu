#include "cuda/fused/attention_fused.cuh"

#include <stdexcept>
#include <string>

#include "model/model_spec.h"
#include "model/window_map.h"
#include "cuda/device/cta_warps.cuh"
#include "cuda/device/persistent_tile_loop.cuh"
#include "cuda/device/warp_tile_mma.cuh"
#include "cuda/fused/attention_half.cuh"
#include "cuda/fused/warp_token_rows.cuh"

namespace swinup::cuda {
namespace {

constexpr int kMinWarps = 2;

// Shared memory of a CTA: the half's operands (attention_half.cuh: Wqkv, Wproj, their scale/bias
// pairs, norm1's gains), loaded once; then per warp kXBuffers buffers of its window's f16 token
// rows (cp.async double buffer; one buffer at C = 128), the e4m3 rows and the Q K V rows.
template <int kC>
struct AttentionLayout {
    using Half = AttentionHalf<kC>;
    using Operands = typename Half::Operands;
    static constexpr int kCtaBytes = Operands::kBytes;
    static constexpr int kXBufBytes = Half::kXBufBytes;
    // C = 128 (the tube, ~900 windows at 720p): one row buffer, so that 8 warps fit per SM (the
    // H200's 132 x 8 warps then take every window in one round; with two buffers, 6 warps a CTA
    // left a second round of windows). Elsewhere two (the next window's copy overlaps the current).
    static constexpr int kXBuffers = kC >= 128 ? 1 : 2;
    static constexpr int kWarpBytes = kXBuffers * kXBufBytes + Half::kABytes + Half::kQkvBytes;
    // The most warps a CTA can have on any supported device (sm_90's 227 KiB per block; sm_89's
    // 99 KiB allow fewer): the launch bound, so that C = 96 and 128 (9 and 6 warps) may use more
    // than 128 registers instead of spilling.
    static constexpr int kMaxWarpsAnyDevice = max_cta_warps_any_device(kCtaBytes, kWarpBytes);
};

// One CTA keeps Wqkv, Wproj and their scales and biases in shared memory; each warp independently
// walks windows (persistent_tile_loop.cuh: warp-level grid stride, its next window's rows copied
// while it computes the current one) through the attention half (attention_half.cuh), then stores
// the window's rows back to their tokens.
template <int kC, int kHeads>
__global__ void __launch_bounds__(AttentionLayout<kC>::kMaxWarpsAnyDevice * 32) attention_fused_kernel(const AttentionBlockArgs p) {
    using L = AttentionLayout<kC>;
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    const typename L::Operands cta(smem);
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int warps = static_cast<int>(blockDim.x) / 32;
    uint8_t* x_base = smem + L::kCtaBytes + warp * L::kWarpBytes;  // kXBuffers buffers
    uint8_t* a_s = x_base + L::kXBuffers * L::kXBufBytes;           // norm1 output, then attention output
    uint8_t* qkv_s = a_s + L::Half::kABytes;

    cta.stage(p.norm_gain, p.w_qkv, p.scale_qkv, p.bias_qkv, p.w_proj, p.scale_proj, p.bias_proj);

    const int g = lane >> 2, t = lane & 3;
    const FragmentRows f = fragment_rows(lane);
    auto load = [&](int window, int buf) { load_window_rows<kC>(p, window, x_base + buf * L::kXBufBytes, lane); };
    auto compute = [&](int window, int buf) {
        uint8_t* x_s = x_base + buf * L::kXBufBytes;
        attention_half_window<kC, kHeads>(p, cta, window, x_s, a_s, qkv_s, lane, g, t, f);
        __syncwarp();
        // The window's rows back to their tokens.
        store_token_rows16<kC>(p.x, x_s, L::Half::kXStride, lane, [&](int r) {
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

void check_attention_args(const AttentionBlockArgs& p, const char* kernel) {
    auto check = [&](bool ok, const char* what) {
        if (!ok) throw std::invalid_argument(std::string(kernel) + ": " + what);
    };
    check(p.x && p.norm_gain && p.w_qkv && p.scale_qkv && p.bias_qkv && p.rel_bias && p.w_proj && p.scale_proj &&
              p.bias_proj,
          "null operand");
    check(p.width > 0 && p.height > 0 && p.width % kWindow == 0 && p.height % kWindow == 0,
          "the grid must be a positive multiple of 4 tokens in each direction");
    check(reinterpret_cast<uintptr_t>(p.x) % 16 == 0, "x must be 16-byte aligned (16-byte rows)");
    check(reinterpret_cast<uintptr_t>(p.w_qkv) % 16 == 0 && reinterpret_cast<uintptr_t>(p.w_proj) % 16 == 0,
          "the weights must be 16-byte aligned");
}

void attention_fused(const AttentionBlockArgs& p, cudaStream_t stream) {
    check_attention_args(p, "attention_fused");
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
