#include "cuda/fused/mlp_fused.cuh"

#include <stdexcept>
#include <string>

#include "numeric/exact_math.h"
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

namespace swinup::cuda {
namespace {

// Shared rows are padded by 16 bytes, as in gemm_e4m3.cu: every row stride below is an odd number
// of 16-byte units, so the 8 rows of an ldmatrix phase (or of a quarter-warp's 16-byte accesses)
// hit 8 different bank quads.
constexpr int kRowPad = 16;
constexpr int kMinWarps = 4;

// Shared memory of a CTA. Shared by its warps, loaded once: W1 [4C][C + 16], W2 [C][4C + 16],
// (scale, scale, bias, bias) per column pair of fc1 and of fc2, norm2's gains. Then per warp: two
// buffers of its tile's 16 f16 token rows [16][2C + 16] (cp.async double buffer; they also hold
// the residual for fc2's epilogue and its f16 result before the store), and the tile's e4m3 hidden
// rows [16][4C / parts + 16], whose start first holds the normalised rows [16][C + 16] (fc1's A,
// read into registers before the hidden rows are written).
//
// C = 128 (the tube, ~900 tiles at 720p): one row buffer, and the hidden width in two parts of
// 256 (fc1 of part 0, fc2's K chunks 0-7, fc1 of part 1, fc2's K chunks 8-15: each accumulator
// still takes its chunks in increasing order), so that 9 warps fit per SM instead of 4 and the
// H200's 132 x 9 warps take every tile in one round. Elsewhere one part and two buffers.
template <int kC>
struct MlpLayout {
    static_assert(kC % 32 == 0, "C must be a multiple of the K chunk");
    static constexpr int kHidden = 4 * kC;
    using Operands = BlockCtaOperands<kHidden, kC, kC, kHidden, kRowPad>;  // norm2, fc1, fc2
    static constexpr int kW1Stride = Operands::kStride1;
    static constexpr int kW2Stride = Operands::kStride2;
    static constexpr int kXStride = 2 * kC + kRowPad;
    static constexpr int kAStride = kC + kRowPad;
    static constexpr int kParts = kC >= 128 ? 2 : 1;
    static constexpr int kXBuffers = kC >= 128 ? 1 : 2;
    static constexpr int kPart = kHidden / kParts;  // hidden columns computed at a time
    static constexpr int kHStride = kPart + kRowPad;
    static constexpr int kCtaBytes = Operands::kBytes;
    static constexpr int kXBufBytes = 16 * kXStride;
    static constexpr int kWarpBytes = kXBuffers * kXBufBytes + 16 * kHStride;
    static_assert(16 * kAStride <= 16 * kHStride, "the normalised rows fit in the hidden rows' space");
    static_assert(kCtaBytes % 16 == 0 && kWarpBytes % 16 == 0, "16-byte aligned regions");
    // The most warps a CTA can have on any supported device (sm_90's 227 KiB per block): the
    // launch bound, so that C = 96 and 128 (11 and 9 warps) may use more than 128 registers.
    static constexpr int kMaxWarpsAnyDevice = max_cta_warps_any_device(kCtaBytes, kWarpBytes);
};

// Issues the copies of 16-token tile `tile`'s f16 rows into x_s, zero-filled past m (one warp).
template <int kC>
__device__ __forceinline__ void load_x_rows(const MlpArgs& p, int tile, uint8_t* x_s, int lane) {
    using L = MlpLayout<kC>;
    constexpr int kChunks = 2 * kC / 16;  // 16-byte pieces per row
    for (int i = lane; i < 16 * kChunks; i += 32) {
        const int r = i / kChunks, c = i - r * kChunks;
        const int m = tile * 16 + r;
        const bool real = m < p.m;
        const uint16_t* src = real ? p.x + static_cast<size_t>(m) * kC + c * 8 : p.x;
        cp_async_16(x_s + r * L::kXStride + c * 16, src, real ? 16 : 0);
    }
}

// One CTA keeps W1, W2 and their scales and biases in shared memory; each warp independently walks
// 16-token tiles (persistent_tile_loop.cuh: warp-level grid stride, its next tile's rows copied
// while it computes the current one) through norm2, fc1 + GELU -> e4m3 into its hidden rows, fc2 +
// residual. Only __syncwarp between the steps: a warp's tile is its own (16 rows, the m16 tile of
// the GEMM).
//
// Fragment positions as in gemm_e4m3_kernel: tile rows start at multiples of 16 (the GEMM's
// 64-row tiles are four such m16 tiles, one per warp), so token m sits at fragment row m % 16 in
// both; columns are walked in 16-column steps from 0 (two n8 tiles, one ldmatrix.x4 of W), so
// column n sits at n % 16 in both.
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
    auto load = [&](int tile, int buf) { load_x_rows<kC>(p, tile, x_base + buf * L::kXBufBytes, lane); };
    auto compute = [&](int tile, int buf) {
        uint8_t* x_s = x_base + buf * L::kXBufBytes;

        // norm2 -> fc1's A (16 x C e4m3), then into registers: the C / 32 chunks' fragments.
        rms_normalise_tile16<kC>(x_s, L::kXStride, cta.gain_s, h_s, L::kAStride, p.precision, lane);
        __syncwarp();
        uint32_t a1[kC / 32][4];
        load_a_fragments<kC / 32>(a1, h_s, L::kAStride, f);
        __syncwarp();  // the normalised rows are read before the hidden rows overwrite them

        // Per part: fc1 + GELU -> e4m3 hidden rows (the fragment owner applies the epilogue to its
        // own elements: rows g, g + 8; columns 2t, 2t + 1 of each n8 tile, stored as an e4m3
        // pair), then fc2's K chunks of those hidden columns, all C / 16 column steps at once (one
        // A fragment of the hidden rows serves every step).
        float acc2[kC / 16][2][4];
        zero_accumulators(acc2);
#pragma unroll 1
        for (int part = 0; part < L::kParts; ++part) {
            if (part > 0) __syncwarp();  // fc2 has read the previous part's hidden rows
            // Four 16-column steps unrolled: their mma chains and epilogues interleave (measured on
            // the H200: lite fast 720p -> 4K 1.474 -> 1.460 ms; unroll 2: 1.466).
#pragma unroll 4
            for (int j0 = 0; j0 < L::kPart; j0 += 16) {  // local hidden column; global n0 + part offset
                const int n0 = part * L::kPart + j0;
                float acc[2][4];  // (n8 tile, fragment)
                mma_step16<kC / 32>(acc, a1, cta.w1_s, L::kW1Stride, n0, f);
                scale_bias_step16(acc, cta.sb1_s, n0, j0, g, t, [&](int row, int col, float y0, float y1) {
                    *reinterpret_cast<uint16_t*>(h_s + row * L::kHStride + col) = gelu_e4m3x2(y0, y1, p.precision);
                });
            }
            __syncwarp();  // the part's hidden rows complete before fc2 reads them
            mma_all_steps_accumulate<L::kPart, kC / 16>(acc2, h_s, L::kHStride, cta.w2_s + part * L::kPart,
                                                         L::kW2Stride, f);
        }
        // Residual epilogue in place in the tile's f16 rows (the x that norm2 read, the value the
        // unfused fc2 reads from device memory): f16(f32(x) + y), each element by its owner.
        residual_add_f16_rows<kC / 16>(acc2, x_s, L::kXStride, cta.sb2_s, g, t);
        __syncwarp();
        // The tile's rows back to device memory (rows past m are not stored).
        store_token_rows16<kC>(p.x, x_s, L::kXStride, lane, [&](int r) {
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

void mlp_fused(const MlpArgs& p, cudaStream_t stream) {
    require(p.x && p.norm_gain && p.w1 && p.scale1 && p.bias1 && p.w2 && p.scale2 && p.bias2, "null operand");
    require(p.m > 0, "m must be positive");
    require(reinterpret_cast<uintptr_t>(p.x) % 16 == 0, "x must be 16-byte aligned (16-byte rows)");
    require(reinterpret_cast<uintptr_t>(p.w1) % 16 == 0 && reinterpret_cast<uintptr_t>(p.w2) % 16 == 0,
            "the weights must be 16-byte aligned");
    require(mlp_fused_supported(p.channels), "unsupported channel count (see mlp_fused_supported)");
    switch (p.channels) {
        case 32: launch<32>(p, stream); break;
        case 64: launch<64>(p, stream); break;
        case 96: launch<96>(p, stream); break;
        case 128: launch<128>(p, stream); break;
    }
}

}  // namespace swinup::cuda
