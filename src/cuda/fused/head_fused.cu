#include "cuda/fused/head_fused.cuh"

#include <stdexcept>
#include <string>

#include "cuda/device/cp_async.cuh"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_limits.cuh"
#include "cuda/device/persistent_grid.cuh"
#include "cuda/device/persistent_tile_loop.cuh"
#include "cuda/fused/head_tile.cuh"
#include "cuda/device/warp_tile_mma.cuh"

namespace swinup::cuda {
namespace {

// 8 warps per CTA, two CTAs per SM on the H200 (16 warps: the register file's limit at the 128
// registers the launch bound allows, as lite's tail), one on sm_89 (99 KiB per block). Each CTA
// holds its own copy of the head's weights (13.6 KiB with the MLP): cheap next to the per-warp
// buffers.
constexpr int kWarps = 8;
constexpr int kMinBlocks = 2;
constexpr int kTile = 32;  // pixels per warp step: head_pair's two 16-row tiles

// Shared memory. Per CTA: W_head [16][32 + 16], head.linear's (scale, scale, bias, bias) per
// column pair, the head norm's gains; with the head MLP then head_tile.cuh's MLP region (W1, W2,
// W3 and their pairs, 12,608 bytes). Per warp: two buffers of a tile's 32 f16 d0 rows
// [32][64 + 16] (the next tile copied while the current one computes; the current one takes the
// MLP's hidden rows h1, h2 once the head norm has read it, exactly as wide), the head norm's e4m3
// rows [32][32 + 16], and with the head MLP two buffers of the tile's staged rows [32][16] (fc1's
// K chunk 1; without the MLP nothing reads the slots).
constexpr int kCtaBytes = kHeadN * kHeadWStride + (kHeadN / 2) * 16 + kHeadC * 4;
constexpr int kD0BufBytes = kTile * kHeadD0Stride, kStBufBytes = kTile * kHeadStStride;
template <bool kHeadMlp>
constexpr int kWarpBytes = 2 * kD0BufBytes + kTile * kHeadHnStride + (kHeadMlp ? 2 * kStBufBytes : 0);
template <bool kHeadMlp>
constexpr int kSmemBytes = kCtaBytes + (kHeadMlp ? kHeadMlpBytes : 0) + kWarps * kWarpBytes<kHeadMlp>;
static_assert(kCtaBytes % 16 == 0 && kWarpBytes<false> % 16 == 0 && kWarpBytes<true> % 16 == 0,
              "16-byte aligned regions");
static_assert(kSmemBytes<false> == 54272 && kSmemBytes<true> == 75072, "the layout stated above");

// Issues the copies of tile `tile` (pixels 32 tile .. 32 tile + 31, consecutive in the padded
// grid's row-major order): their d0 rows (four 16-byte words each; a warp instruction copies 8
// whole rows, 512 contiguous bytes) and, kHeadMlp, their staged rows (one per lane).
template <bool kHeadMlp>
__device__ __forceinline__ void load_tile(const HeadArgs& p, int tile, uint8_t* d0_s, uint8_t* st_s, int lane) {
    const size_t p0 = static_cast<size_t>(tile) * kTile;
    const uint16_t* d0 = p.d0 + p0 * kHeadC;
    constexpr int kWordsPerRow = 2 * kHeadC / 16;
    for (int i = lane; i < kTile * kWordsPerRow; i += 32) {
        const int r = i / kWordsPerRow, c = i - r * kWordsPerRow;
        cp_async_16(d0_s + r * kHeadD0Stride + c * 16, d0 + r * kHeadC + c * 8, 16);
    }
    if constexpr (kHeadMlp) cp_async_16(st_s + lane * kHeadStStride, p.staged + (p0 + lane) * kSlots, 16);
}

// Each warp walks 32-pixel tiles (persistent_tile_loop.cuh: warp-level grid stride, the next tile's
// rows copied while it computes the current one) and runs head_pair on each: the head norm (one row
// per lane) -> the head linear (-> the head MLP) -> f32 outputs, row 16 i + r of the tile being
// tile i's row r.
template <bool kHeadMlp>
__global__ void __launch_bounds__(kWarps * 32, kMinBlocks) head_fused_kernel(const HeadArgs p) {
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    uint8_t* wh_s = smem;
    float4* sbh_s = reinterpret_cast<float4*>(wh_s + kHeadN * kHeadWStride);
    float* gain_h = reinterpret_cast<float*>(sbh_s + kHeadN / 2);
    const HeadMlpSmem mlp = head_mlp_smem(smem + kCtaBytes);  // kHeadMlp only
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    uint8_t* d0_base = smem + kCtaBytes + (kHeadMlp ? kHeadMlpBytes : 0) + warp * kWarpBytes<kHeadMlp>;
    uint8_t* hn_s = d0_base + 2 * kD0BufBytes;  // the tile's head-norm rows
    uint8_t* st_base = hn_s + kTile * kHeadHnStride;  // kHeadMlp: 2 staged row buffers

    stage_head<kHeadMlp>(p.head_w, wh_s, sbh_s, gain_h, mlp);
    const HeadSmem head_w{wh_s, sbh_s, gain_h, mlp.w1_s, mlp.w2_s, mlp.w3_s, mlp.sb1_s, mlp.sb2_s, mlp.sb3_s};
    const int g = lane >> 2, t = lane & 3;
    const FragmentRows f = fragment_rows(lane);
    auto load = [&](int tile, int buf) {
        load_tile<kHeadMlp>(p, tile, d0_base + buf * kD0BufBytes, st_base + buf * kStBufBytes, lane);
    };
    auto compute = [&](int tile, int buf) {
        const size_t p0 = static_cast<size_t>(tile) * kTile;
        auto pixel_of = [&](int i, int r) { return p0 + 16 * i + r; };
        head_pair<kHeadMlp>(d0_base + buf * kD0BufBytes, st_base + buf * kStBufBytes, hn_s, head_w, p.precision,
                            p.head, pixel_of, f, lane, g, t);
    };
    // The head-norm rows are one buffer: the loop's closing __syncwarp keeps the next tile from
    // rewriting them (and, with the MLP, the d0 buffer's hidden rows) before they are read.
    persistent_tile_loop<2, TileWalker::warp>(static_cast<int>(blockIdx.x) * kWarps + warp,
                                              static_cast<int>(gridDim.x) * kWarps, p.pixels / kTile, load, compute);
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("head_fused: ") + what);
}

template <bool kHeadMlp>
void launch(const HeadArgs& p, cudaStream_t stream) {
    constexpr int smem = kSmemBytes<kHeadMlp>;
    const int blocks = persistent_blocks(head_fused_kernel<kHeadMlp>, kWarps, smem, p.pixels / kTile, "head_fused");
    head_fused_kernel<kHeadMlp><<<blocks, kWarps * 32, smem, stream>>>(p);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace

bool head_fused_supported(bool head_mlp) {
    return (head_mlp ? kSmemBytes<true> : kSmemBytes<false>) <= device_limits().smem_optin;
}

void head_fused(const HeadArgs& p, cudaStream_t stream) {
    if (const char* problem = p.head_w.problem()) require(false, problem);
    const bool head_mlp = p.head_w.has_mlp();
    require(p.d0 && p.head && (!head_mlp || p.staged), "null operand");
    require(p.pixels > 0 && p.pixels % kTile == 0, "the pixel count must be a positive multiple of 32");
    for (const void* a : {static_cast<const void*>(p.d0), static_cast<const void*>(p.staged),
                          static_cast<const void*>(p.head)})
        require(reinterpret_cast<uintptr_t>(a) % 16 == 0, "operands must be 16-byte aligned");
    require(head_fused_supported(head_mlp), "the kernel's shared memory does not fit on this device");
    if (head_mlp) launch<true>(p, stream);
    else launch<false>(p, stream);
}

}  // namespace swinup::cuda
