#include "cuda/fused/mlp_fused.cuh"

#include <stdexcept>
#include <string>

#include "cuda/device/cp_async.cuh"
#include "cuda/device/cta_warps.cuh"
#include "cuda/device/persistent_tile_loop.cuh"
#include "cuda/device/warp_tile_mma.cuh"
#include "cuda/fused/mlp_half.cuh"
#include "cuda/fused/warp_token_rows.cuh"

namespace swinup::cuda {
namespace {

constexpr int kMinWarps = 4;

// Shared memory of a CTA: the half's operands (mlp_half.cuh: W1, W2, their scale/bias pairs,
// norm2's gains), loaded once; then per warp kXBuffers buffers of its tile's 16 f16 token rows
// (cp.async double buffer) and the tile's hidden rows.
//
// C = 128 (the tube, ~900 tiles at 720p): one row buffer, and the hidden width in two parts of
// 256, so that 9 warps fit per SM instead of 4 and the H200's 132 x 9 warps take every tile in
// one round. Elsewhere one part and two buffers.
template <int kC>
struct MlpLayout {
    static constexpr int kParts = kC >= 128 ? 2 : 1;
    using Half = MlpHalf<kC, kParts>;
    using Operands = typename Half::Operands;
    static constexpr int kXBuffers = kC >= 128 ? 1 : 2;
    static constexpr int kCtaBytes = Operands::kBytes;
    static constexpr int kXBufBytes = Half::kXBufBytes;
    static constexpr int kWarpBytes = kXBuffers * kXBufBytes + Half::kHBytes;
    // The most warps a CTA can have on any supported device (sm_90's 227 KiB per block): the
    // launch bound, so that C = 96 and 128 (11 and 9 warps) may use more than 128 registers.
    static constexpr int kMaxWarpsAnyDevice = max_cta_warps_any_device(kCtaBytes, kWarpBytes);
};

// One CTA keeps W1, W2 and their scales and biases in shared memory; each warp independently walks
// 16-token tiles (persistent_tile_loop.cuh: warp-level grid stride, its next tile's rows copied
// while it computes the current one) through the MLP half (mlp_half.cuh), then stores the tile's
// rows back. Tile rows start at multiples of 16 (the GEMM's 64-row tiles are four such m16
// tiles, one per warp), so token m sits at fragment row m % 16 as in gemm_e4m3_kernel.
template <int kC>
__global__ void __launch_bounds__(MlpLayout<kC>::kMaxWarpsAnyDevice * 32) mlp_fused_kernel(const MlpArgs p) {
    using L = MlpLayout<kC>;
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    const typename L::Operands cta(smem);  // W1, W2, their scale/bias pairs, norm2's gains
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int warps = static_cast<int>(blockDim.x) / 32;
    uint8_t* x_base = smem + L::kCtaBytes + warp * L::kWarpBytes;  // kXBuffers buffers
    uint8_t* h_s = x_base + L::kXBuffers * L::kXBufBytes;           // hidden rows (first: fc1's A)

    cta.stage(p.norm_gain, p.w1, p.scale1, p.bias1, p.w2, p.scale2, p.bias2);

    const int g = lane >> 2, t = lane & 3;
    const FragmentRows f = fragment_rows(lane);
    auto load = [&](int tile, int buf) { load_tile_rows<kC>(p, tile, x_base + buf * L::kXBufBytes, lane); };
    auto compute = [&](int tile, int buf) {
        uint8_t* x_s = x_base + buf * L::kXBufBytes;
        mlp_half_tile<kC, L::kParts>(cta, p.precision, x_s, h_s, lane, g, t, f);
        __syncwarp();
        // The tile's rows back to device memory (rows past m are not stored).
        store_token_rows16<kC>(p.x, x_s, L::Half::kXStride, lane, [&](int r) {
            const int m = tile * 16 + r;
            return RowToken{m, m < p.m};
        });
    };
    persistent_tile_loop<L::kXBuffers, TileWalker::warp>(static_cast<int>(blockIdx.x) * warps + warp,
                                                         static_cast<int>(gridDim.x) * warps, (p.m + 15) / 16, load,
                                                         compute);
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("mlp_fused: ") + what);
}

// Warps per CTA: as many as the device's per-block shared memory holds, up to 16 (one CTA of 16
// warps per SM keeps a single copy of the weights per SM). H200 (227 KiB): C = 32 16 warps
// (90 KiB, 2 CTAs per SM), C = 64 16 warps (180 KiB), C = 96 11 warps (224 KiB), C = 128 9 warps
// (one row buffer, two hidden parts: 222 KiB).
template <int kC>
int warps_for_device() {
    return cta_warps_for_device<MlpLayout<kC>>();
}

template <int kC>
void launch(const MlpArgs& p, cudaStream_t stream) {
    launch_cta_warps<MlpLayout<kC>>(mlp_fused_kernel<kC>, p, kMinWarps, (p.m + 15) / 16, "mlp_fused",  // 16-row tiles
                                    stream);
}

}  // namespace

bool mlp_fused_supported(int channels) {
    switch (channels) {
        case 32: return warps_for_device<32>() >= kMinWarps;
        case 64: return warps_for_device<64>() >= kMinWarps;
        case 96: return warps_for_device<96>() >= kMinWarps;
        case 128: return warps_for_device<128>() >= kMinWarps;
        default: return false;
    }
}

void check_mlp_args(const MlpArgs& p, const char* kernel) {
    auto check = [&](bool ok, const char* what) {
        if (!ok) throw std::invalid_argument(std::string(kernel) + ": " + what);
    };
    check(p.x && p.norm_gain && p.w1 && p.scale1 && p.bias1 && p.w2 && p.scale2 && p.bias2, "null operand");
    check(p.m > 0, "m must be positive");
    check(reinterpret_cast<uintptr_t>(p.x) % 16 == 0, "x must be 16-byte aligned (16-byte rows)");
    check(reinterpret_cast<uintptr_t>(p.w1) % 16 == 0 && reinterpret_cast<uintptr_t>(p.w2) % 16 == 0,
          "the weights must be 16-byte aligned");
}

void mlp_fused(const MlpArgs& p, cudaStream_t stream) {
    check_mlp_args(p, "mlp_fused");
    require(mlp_fused_supported(p.channels), "unsupported channel count (see mlp_fused_supported)");
    switch (p.channels) {
        case 32: launch<32>(p, stream); break;
        case 64: launch<64>(p, stream); break;
        case 96: launch<96>(p, stream); break;
        case 128: launch<128>(p, stream); break;
    }
}

}  // namespace swinup::cuda
