#include "cuda/fused/lite_tail_fused.cuh"

#include <stdexcept>
#include <string>

#include "numeric/exact_math.h"
#include "cuda/device/cp_async.cuh"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_limits.cuh"
#include "cuda/device/device_math.cuh"
#include "cuda/device/persistent_grid.cuh"
#include "cuda/device/persistent_tile_loop.cuh"
#include "cuda/fused/head_tile.cuh"
#include "cuda/layers/rms_norm_row.cuh"
#include "cuda/device/warp_tile_mma.cuh"

namespace swinup::cuda {
namespace {

constexpr int kWarps = 16;
constexpr int kC1 = 64;      // dec1 channels
constexpr int kC0 = kHeadC;  // render-resolution channels (expand0's output, the head's input)
constexpr int kRowPad = kHeadRowPad;
// The head's shapes, strides and MLP pieces: head_tile.cuh.

// Shared memory. Per CTA: W_expand [128][64 + 16], W_skip [32][32 + 16], W_head [16][32 + 16],
// (scale, scale, bias, bias) per column pair of each, the two norms' gains. Per warp: two buffers
// of a tile's 16 dec1 rows [16][128 + 16] and of its 64 pixels' staged rows [4][16][16] (only the
// 16 slots: skip0's K padding, bytes 16-31, is two zero fragment registers; rows of 16 bytes are
// conflict-free for ldmatrix, eight rows being 128 contiguous bytes), the e4m3 rows of expand0's
// norm [16][64 + 16] (each quadrant reads its A fragments), a quadrant pair's d0 rows, f16
// [32][32 * 2 + 16], and the head norm's e4m3 rows of the pair [32][32 + 16].
constexpr int kWeStride = kC1 + kRowPad, kWsStride = 32 + kRowPad, kWhStride = kHeadWStride;
constexpr int kXStride = 2 * kC1 + kRowPad, kStStride = kHeadStStride, kAStride = kC1 + kRowPad;
constexpr int kD0Stride = kHeadD0Stride, kHnStride = kHeadHnStride;
static_assert(kWhStride == kC0 + kRowPad && kStStride == kSlots && kD0Stride == 2 * kC0 + kRowPad &&
                  kHnStride == kC0 + kRowPad,
              "head_tile.cuh's rows");
constexpr int kCtaBytes = 4 * kC0 * kWeStride + kC0 * kWsStride + kHeadN * kWhStride +
                          (4 * kC0 / 2 + kC0 / 2 + kHeadN / 2) * 16 + (kC1 + kC0) * 4;
constexpr int kXBufBytes = 16 * kXStride, kStBufBytes = 4 * 16 * kStStride;
constexpr int kWarpBytes = 2 * kXBufBytes + 2 * kStBufBytes + 16 * kAStride + 32 * kAStride + 32 * kHnStride;
static_assert(kAStride == kD0Stride, "the pair's d0 rows fill the a_s rows (32 x kAStride bytes)");
static_assert(kCtaBytes % 16 == 0 && kWarpBytes % 16 == 0, "16-byte aligned regions");

// With the head MLP (the kernel's kHeadMlp instantiation; the other keeps the layout above), after
// the CTA's region: head_tile.cuh's head-MLP region (W1, W2, W3, their scale/bias pairs). Nothing
// per warp: a quadrant pair's hidden rows (e4m3 [32][64 + 16]) take the d0 rows' space, dead once
// the head norm has read them. 12,608 bytes: 219,456 in all, within the H200's 232,448 per block.
static_assert(kHStride == kAStride, "a quadrant's hidden rows reuse the d0 rows' space");
constexpr int kMlpBytes = kHeadMlpBytes;
template <bool kHeadMlp>
constexpr int kSmemBytes = kCtaBytes + (kHeadMlp ? kMlpBytes : 0) + kWarps * kWarpBytes;
static_assert(kSmemBytes<false> == 206848 && kSmemBytes<true> == 219456, "the layouts stated above");

// skip0 + expand0 of quadrant q's 16 pixels (as: their staged rows' fragment; ae: expand0's norm)
// -> this lane's d0 words (the expand_add_f16 epilogue with the f32 skip), word [s][nt][half] at
// row g + 8 half, columns c, c + 1 with c = s * 16 + nt * 8 + 2t (both instantiations).
__device__ __forceinline__ void quadrant_d0(uint32_t (&w)[kC0 / 16][2][2], const uint32_t (&as)[1][4],
                                            const uint32_t (&ae)[kC1 / 32][4], const uint8_t* ws_s,
                                            const uint8_t* we_s, const float4* sbs_s, const float4* sbe_s, int q,
                                            const FragmentRows& f, int t) {
#pragma unroll
    for (int s = 0; s < kC0 / 16; ++s) {
        float acc_skip[2][4], acc_exp[2][4];
        mma_step16<1>(acc_skip, as, ws_s, kWsStride, s * 16, f);
        mma_step16<kC1 / 32>(acc_exp, ae, we_s, kWeStride, q * kC0 + s * 16, f);
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) {
            const int c = s * 16 + nt * 8 + 2 * t;
            const float4 sbs = sbs_s[c / 2];
            const float4 sbe = sbe_s[(q * kC0 + c) / 2];
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const float ys0 = scale_bias(acc_skip[nt][2 * half], sbs.x, sbs.z);
                const float ys1 = scale_bias(acc_skip[nt][2 * half + 1], sbs.y, sbs.w);
                const float ye0 = scale_bias(acc_exp[nt][2 * half], sbe.x, sbe.z);
                const float ye1 = scale_bias(acc_exp[nt][2 * half + 1], sbe.y, sbe.w);
                w[s][nt][half] = f16x2(exact::add(ye0, ys0), exact::add(ye1, ys1));
            }
        }
    }
}

// Issues the copies of tile `tile` (level-1 tokens 16 tile .. 16 tile + 15, one grid row since
// w1 % 16 == 0): their dec1 rows, and the staged rows of their 2x2 pixels by quadrant
// q = dy * 2 + dx (row r of quadrant q = pixel (2 y + dy, 2 (x0 + r) + dx)).
__device__ __forceinline__ void load_tile(const LiteTailArgs& p, int tile, uint8_t* x_s, uint8_t* st_s, int lane) {
    const int m0 = tile * 16;
    const uint16_t* d1 = p.d1 + static_cast<size_t>(m0) * kC1;
    for (int i = lane; i < 16 * (2 * kC1 / 16); i += 32) {
        const int r = i / (2 * kC1 / 16), c = i - r * (2 * kC1 / 16);
        cp_async_16(x_s + r * kXStride + c * 16, d1 + r * kC1 + c * 8, 16);
    }
    const int y = m0 / p.width1, x0 = m0 - y * p.width1, fine_width = 2 * p.width1;
    for (int i = lane; i < 64; i += 32) {
        const int q = i >> 4, r = i & 15;
        const size_t pixel = static_cast<size_t>(2 * y + (q >> 1)) * fine_width + 2 * (x0 + r) + (q & 1);
        cp_async_16(st_s + (q * 16 + r) * kStStride, p.staged + pixel * kSlots, 16);
    }
}

// Each warp walks 16-token tiles (persistent_tile_loop.cuh: warp-level grid stride, the next tile's
// rows copied while it computes the current one): expand0's norm -> e4m3 rows; then per quadrant
// pair (dy = 0, then 1; the pair's two quadrants are dx = 0, 1), per quadrant skip0 and that
// quadrant's 32 expand0 columns side by side (the same fragment positions, so each lane holds both
// terms of its d0 elements) -> the pair's 32 d0 rows -> the head norm (one row per lane) -> the
// head linear -> f32 outputs. kHeadMlp: also the head MLP on the pair's 32 rows (head_mlp_layer for
// fc1 and fc2, head_mlp_fc3), added to head outputs 0-7 before the head's store. A pair rather than
// one quadrant at a time (2026-12-02, ca8a0f3): the kernel is bound by instruction issue (ncu,
// H200: 70% of issue slots busy, 2 of 4 warps per scheduler eligible), and the pair halves the head
// norm's sums (lanes 16-31 duplicated lanes 0-15's rows), reads each MLP and head-linear weight
// fragment once for two tiles and synchronises the warp half as often. Tried and measured slower
// (2026-12-02): software-pipelining the quadrants, i.e. computing quadrant q + 1's skip0 + expand0
// into registers during quadrant q's MLP: 0.142 ms against 0.135 ms without (the 128-register cap,
// spills).
template <bool kHeadMlp>
__global__ void __launch_bounds__(kWarps * 32) lite_tail_kernel(const LiteTailArgs p) {
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    uint8_t* we_s = smem;
    uint8_t* ws_s = we_s + 4 * kC0 * kWeStride;
    uint8_t* wh_s = ws_s + kC0 * kWsStride;
    float4* sbe_s = reinterpret_cast<float4*>(wh_s + kHeadN * kWhStride);
    float4* sbs_s = sbe_s + 4 * kC0 / 2;
    float4* sbh_s = sbs_s + kC0 / 2;
    float* gain_e = reinterpret_cast<float*>(sbh_s + kHeadN / 2);
    float* gain_h = gain_e + kC1;
    const HeadMlpSmem mlp = head_mlp_smem(smem + kCtaBytes);  // kHeadMlp only
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    uint8_t* x_base = smem + kCtaBytes + (kHeadMlp ? kMlpBytes : 0) + warp * kWarpBytes;  // 2 dec1 row buffers
    uint8_t* st_base = x_base + 2 * kXBufBytes;              // 2 staged row buffers
    uint8_t* en_s = st_base + 2 * kStBufBytes;               // expand0's norm rows
    uint8_t* a_s = en_s + 16 * kAStride;                     // a pair's d0 rows, then its hidden rows
    uint8_t* hn_s = a_s + 32 * kAStride;                     // the pair's head-norm rows

    cp_async_matrix(we_s, kWeStride, p.w_expand, 4 * kC0, kC1);
    cp_async_matrix(ws_s, kWsStride, p.w_skip, kC0, 32);
    stage_scale_bias_pairs(sbe_s, p.scale_expand, p.bias_expand, 4 * kC0);
    stage_scale_bias_pairs(sbs_s, p.scale_skip, p.bias_skip, kC0);
    for (int i = threadIdx.x; i < kC1; i += blockDim.x) gain_e[i] = p.expand_gain[i];
    stage_head<kHeadMlp>(p.head_w, wh_s, sbh_s, gain_h, mlp);
    const HeadSmem head_w{wh_s, sbh_s, gain_h, mlp.w1_s, mlp.w2_s, mlp.w3_s, mlp.sb1_s, mlp.sb2_s, mlp.sb3_s};
    const int g = lane >> 2, t = lane & 3;
    const FragmentRows f = fragment_rows(lane);
    const int fine_width = 2 * p.width1;
    auto load = [&](int tile, int buf) {
        load_tile(p, tile, x_base + buf * kXBufBytes, st_base + buf * kStBufBytes, lane);
    };
    auto compute = [&](int tile, int buf) {
        const uint8_t* x_s = x_base + buf * kXBufBytes;
        const uint8_t* st_s = st_base + buf * kStBufBytes;
        const int m0 = tile * 16;
        const int y = m0 / p.width1, x0 = m0 - y * p.width1;

        // expand0's norm -> e4m3 rows, whose A fragments (K = 64: two chunks) each quadrant reads
        // (held in registers through the tile instead, they pushed the head MLP past 128 registers).
        rms_normalise_tile16<kC1>(x_s, kXStride, gain_e, en_s, kAStride, p.precision, lane);
        __syncwarp();

#pragma unroll 1
        for (int pair = 0; pair < 2; ++pair) {  // quadrants 2 pair + i, i = dx (dy = pair)
            // Pixel of row r of the pair's tile i.
            auto pixel_of = [&](int i, int r) {
                return static_cast<size_t>(2 * y + pair) * fine_width + 2 * (x0 + r) + i;
            };
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int q = 2 * pair + i;
                uint32_t ae[kC1 / 32][4], as[1][4], d0w[kC0 / 16][2][2];
                load_a_fragments<kC1 / 32>(ae, en_s, kAStride, f);
                load_staged_fragment(as, st_s + q * 16 * kStStride, lane);
                quadrant_d0(d0w, as, ae, ws_s, we_s, sbs_s, sbe_s, q, f, t);
#pragma unroll
                for (int s = 0; s < kC0 / 16; ++s)
#pragma unroll
                    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
                        for (int half = 0; half < 2; ++half) {
                            const int r = g + 8 * half, c = s * 16 + nt * 8 + 2 * t;
                            *reinterpret_cast<uint32_t*>(a_s + (16 * i + r) * kD0Stride + c * 2) = d0w[s][nt][half];
                            if (p.d0) *reinterpret_cast<uint32_t*>(p.d0 + pixel_of(i, r) * kC0 + c) = d0w[s][nt][half];
                        }
            }
            __syncwarp();  // the pair's d0 rows complete

            // The head of the pair's 32 pixels (head_tile.cuh): norm -> linear (-> the MLP, its
            // hidden rows in a_s) -> f32 outputs.
            head_pair<kHeadMlp>(a_s, st_s + 2 * pair * 16 * kStStride, hn_s, head_w, p.precision, p.head, pixel_of, f,
                                lane, g, t);
            __syncwarp();  // the head-norm (and h2) rows are read before the next pair rewrites them
        }
    };
    persistent_tile_loop<2, TileWalker::warp>(static_cast<int>(blockIdx.x) * kWarps + warp,
                                              static_cast<int>(gridDim.x) * kWarps, p.width1 * p.height1 / 16, load,
                                              compute);
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("lite_tail_fused: ") + what);
}

template <bool kHeadMlp>
void launch(const LiteTailArgs& p, cudaStream_t stream) {
    constexpr int smem = kSmemBytes<kHeadMlp>;
    const int tiles = p.width1 * p.height1 / 16;
    const int blocks = persistent_blocks(lite_tail_kernel<kHeadMlp>, kWarps, smem, tiles, "lite_tail_fused");
    lite_tail_kernel<kHeadMlp><<<blocks, kWarps * 32, smem, stream>>>(p);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace

bool lite_tail_fused_supported(bool head_mlp) {
    return (head_mlp ? kSmemBytes<true> : kSmemBytes<false>) <= device_limits().smem_optin;
}

void lite_tail_fused(const LiteTailArgs& p, cudaStream_t stream) {
    require(p.d1 && p.staged && p.expand_gain && p.w_expand && p.scale_expand && p.bias_expand && p.w_skip &&
                p.scale_skip && p.bias_skip && p.head,
            "null operand");
    if (const char* problem = p.head_w.problem()) require(false, problem);
    const bool head_mlp = p.head_w.has_mlp();
    require(p.width1 > 0 && p.height1 > 0 && p.width1 % 16 == 0, "the level-1 grid width must be a multiple of 16");
    for (const void* a : {static_cast<const void*>(p.d1), static_cast<const void*>(p.staged),
                          static_cast<const void*>(p.w_expand), static_cast<const void*>(p.w_skip)})
        require(reinterpret_cast<uintptr_t>(a) % 16 == 0, "operands must be 16-byte aligned");
    require(lite_tail_fused_supported(head_mlp), "the kernel's shared memory does not fit on this device");
    if (head_mlp) launch<true>(p, stream);
    else launch<false>(p, stream);
}

}  // namespace swinup::cuda
