#include "cuda/lite_tail_fused.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/exact_math.h"
#include "cuda/cp_async.cuh"
#include "cuda/cuda_check.cuh"
#include "cuda/device_limits.cuh"
#include "cuda/device_math.cuh"
#include "cuda/rms_norm_row.cuh"
#include "cuda/warp_tile_mma.cuh"

namespace swinup::cuda {
namespace {

constexpr int kWarps = 16;
constexpr int kC1 = 64;      // dec1 channels
constexpr int kC0 = 32;      // render-resolution channels (expand0's output, the head's input)
constexpr int kSlots = 16;   // staged slots per render pixel (skip0's K, zero-padded to 32)
constexpr int kHeadN = 16;   // head outputs per render pixel
constexpr int kRowPad = 16;  // as in the other fused kernels: odd multiples of 16 bytes per row
constexpr int kMlpK = 64;    // the head MLP's K: fc1's 48 inputs padded to 64, fc2's and fc3's 64
constexpr int kMlpN = kHeadMlpHidden;  // fc1's and fc2's outputs
constexpr int kMlpN3 = 16;   // fc3's rows in shared memory: its 8 outputs and the 8 zero rows of the
                             // GEMM's N padding (one ldmatrix.x4 reads 16 rows)
static_assert(kHeadMlpInputs == kC0 + kSlots && kMlpK == 2 * 32, "fc1's K chunks: the head norm, the slots");
static_assert(kHeadMlpHidden == kMlpK && kHeadMlpOutputs == 8, "fc3's outputs are the head's first n8 tile");

// Shared memory. Per CTA: W_expand [128][64 + 16], W_skip [32][32 + 16], W_head [16][32 + 16],
// (scale, scale, bias, bias) per column pair of each, the two norms' gains. Per warp: two buffers
// of a tile's 16 dec1 rows [16][128 + 16] and of its 64 pixels' staged rows [4][16][16] (only the
// 16 slots: skip0's K padding, bytes 16-31, is two zero fragment registers; rows of 16 bytes are
// conflict-free for ldmatrix, eight rows being 128 contiguous bytes), the e4m3 rows of expand0's
// norm [16][64 + 16] (each quadrant reads its A fragments), a quadrant pair's d0 rows, f16
// [32][32 * 2 + 16], and the head norm's e4m3 rows of the pair [32][32 + 16].
constexpr int kWeStride = kC1 + kRowPad, kWsStride = 32 + kRowPad, kWhStride = kC0 + kRowPad;
constexpr int kXStride = 2 * kC1 + kRowPad, kStStride = kSlots, kAStride = kC1 + kRowPad;
constexpr int kD0Stride = 2 * kC0 + kRowPad, kHnStride = kC0 + kRowPad;
constexpr int kCtaBytes = 4 * kC0 * kWeStride + kC0 * kWsStride + kHeadN * kWhStride +
                          (4 * kC0 / 2 + kC0 / 2 + kHeadN / 2) * 16 + (kC1 + kC0) * 4;
constexpr int kXBufBytes = 16 * kXStride, kStBufBytes = 4 * 16 * kStStride;
constexpr int kWarpBytes = 2 * kXBufBytes + 2 * kStBufBytes + 16 * kAStride + 32 * kAStride + 32 * kHnStride;
static_assert(kAStride == kD0Stride, "the pair's d0 rows fill the a_s rows (32 x kAStride bytes)");
static_assert(kCtaBytes % 16 == 0 && kWarpBytes % 16 == 0, "16-byte aligned regions");

// With the head MLP (the kernel's kHeadMlp instantiation; the other keeps the layout above), after
// the CTA's region: W1 [64][64 + 16], W2 [64][64 + 16], W3 [16][64 + 16] and the scale/bias pairs
// of fc1's and fc2's 64 columns and fc3's 8. Nothing per warp: a quadrant's hidden rows (e4m3
// [16][64 + 16] per quadrant of the pair) take the d0 rows' space, dead once the head norm has
// read them. 12,608 bytes: 219,456 in all, within the H200's 232,448 per block.
constexpr int kMlpStride = kMlpK + kRowPad, kHStride = kMlpN + kRowPad;
static_assert(kHStride == kAStride, "a quadrant's hidden rows reuse the d0 rows' space");
constexpr int kMlpBytes = (2 * kMlpN + kMlpN3) * kMlpStride + (2 * kMlpN / 2 + kHeadMlpOutputs / 2) * 16;
static_assert(kMlpBytes % 16 == 0, "16-byte aligned regions");
template <bool kHeadMlp>
constexpr int kSmemBytes = kCtaBytes + (kHeadMlp ? kMlpBytes : 0) + kWarps * kWarpBytes;
static_assert(kSmemBytes<false> == 206848 && kSmemBytes<true> == 219456, "the layouts stated above");

// e4m3x2 of two ReLU outputs in one instruction: cvt's .relu clamps negative results to +0, as
// relu's `y > 0 ? y : 0` does before the conversion. The operands are never NaN or -0: y = t +
// bias with t = acc * scale, acc a finite sum from +0 of e4m3 products (so +0 or at least 2^-18 in
// magnitude) and scale a positive normal power of two (src/core/weights.cpp checks it), so t is
// +0 or at least 2^-144 in magnitude (no flush to zero in this build), never -0, and y = -0 would
// need t = -0. So device_math.cuh's e4m3x2(relu, relu) and this give the same bytes, without the NaN
// fix-ups and the two max (the MLP's issue slots are most of its time).
__device__ __forceinline__ uint16_t relu_e4m3x2(float lo, float hi) {
    uint16_t r;
    asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %2, %1;\n" : "=h"(r) : "f"(lo), "f"(hi));
    return r;
}

// One hidden layer of the head MLP on a quadrant pair's 32 rows (two 16-row tiles, A fragments
// a[tile][K chunk], K = 64) times W (kMlpN rows in shared memory), with the GEMM's relu_e4m3
// epilogue (scale_bias, relu, e4m3 of each column pair) into the pair's e4m3 rows h_s (tile i's
// rows at 16 i). In two halves of 32 columns: each half issues its 16 mma.sync (2 K chunks x 2
// column steps x 2 tiles x 2 n8 tiles; each accumulator takes its chunks in increasing order from
// +0) before its epilogue reads a result, and each W fragment serves both tiles, so the pair reads
// W from shared memory once where one quadrant at a time read it twice. `overwrite`: h_s holds the
// rows a was read from (fc2), so the warp synchronises before the first store.
__device__ __forceinline__ void head_mlp_layer(const uint32_t (&a)[2][2][4], const uint8_t* w_s, const float4* sb_s,
                                               uint8_t* h_s, const FragmentRows& f, int g, int t, bool overwrite) {
#pragma unroll
    for (int half_n = 0; half_n < 2; ++half_n) {
        float acc[2][2][2][4];  // [tile][column step][n8 tile][element]
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int s = 0; s < 2; ++s)
#pragma unroll
                for (int nt = 0; nt < 2; ++nt)
#pragma unroll
                    for (int j = 0; j < 4; ++j) acc[i][s][nt][j] = 0.0f;
#pragma unroll
        for (int kc = 0; kc < 2; ++kc) {  // K chunks in increasing order
#pragma unroll
            for (int s = 0; s < 2; ++s) {
                uint32_t b[4];
                ldmatrix_x4(b, w_s + ((half_n * 2 + s) * 16 + f.w_row) * kMlpStride + kc * 32 + f.w_col);
#pragma unroll
                for (int i = 0; i < 2; ++i) {
                    mma_m16n8k32_e4m3(acc[i][s][0], a[i][kc], b[0], b[1]);
                    mma_m16n8k32_e4m3(acc[i][s][1], a[i][kc], b[2], b[3]);
                }
            }
        }
        if (overwrite && half_n == 0) __syncwarp();  // every lane's fragments of h_s are read
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int s = 0; s < 2; ++s)
#pragma unroll
                for (int nt = 0; nt < 2; ++nt) {
                    const int c = (half_n * 2 + s) * 16 + nt * 8 + 2 * t;
                    const float4 sb = sb_s[c / 2];
#pragma unroll
                    for (int half = 0; half < 2; ++half) {
                        const float y0 = scale_bias(acc[i][s][nt][2 * half], sb.x, sb.z);
                        const float y1 = scale_bias(acc[i][s][nt][2 * half + 1], sb.y, sb.w);
                        *reinterpret_cast<uint16_t*>(h_s + (16 * i + g + 8 * half) * kHStride + c) =
                            relu_e4m3x2(y0, y1);
                    }
                }
    }
}

// fc3 of the pair's 32 rows (A = the h2 fragments a[tile]): only its first n8 tile (the 8
// outputs; the second is the layer-by-layer GEMM's zero N padding, whose mma the fused kernel
// skips), each W fragment serving both tiles. y3[tile]: this lane's outputs at the head
// accumulator's first n8 tile's positions (rows g, g + 8, columns 2t, 2t + 1).
__device__ __forceinline__ void head_mlp_fc3(const uint32_t (&a)[2][2][4], const uint8_t* w3_s, const float4* sb3_s,
                                             const FragmentRows& f, int t, float (&y3)[2][4]) {
    float acc[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
#pragma unroll
    for (int kc = 0; kc < 2; ++kc) {  // K chunks in increasing order
        uint32_t b[4];
        ldmatrix_x4(b, w3_s + f.w_row * kMlpStride + kc * 32 + f.w_col);
#pragma unroll
        for (int i = 0; i < 2; ++i) mma_m16n8k32_e4m3(acc[i], a[i][kc], b[0], b[1]);
    }
    const float4 sb = sb3_s[t];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        y3[i][0] = scale_bias(acc[i][0], sb.x, sb.z);
        y3[i][1] = scale_bias(acc[i][1], sb.y, sb.w);
        y3[i][2] = scale_bias(acc[i][2], sb.x, sb.z);
        y3[i][3] = scale_bias(acc[i][3], sb.y, sb.w);
    }
}

// The head linear (32 -> 16) of the pair's two tiles (A: the head norm's fragments ah[tile]), each
// W fragment serving both: mma_step16<1>'s sums.
__device__ __forceinline__ void head_linear_pair(float (&acc)[2][2][4], const uint32_t (&ah)[2][4],
                                                 const uint8_t* wh_s, const FragmentRows& f) {
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int nt = 0; nt < 2; ++nt)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][nt][j] = 0.0f;
    uint32_t b[4];
    ldmatrix_x4(b, wh_s + f.w_row * kWhStride + f.w_col);
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        mma_m16n8k32_e4m3(acc[i][0], ah[i], b[0], b[1]);
        mma_m16n8k32_e4m3(acc[i][1], ah[i], b[2], b[3]);
    }
}

// The staged rows' A fragment of a quadrant (K chunk of 32: the 16 slots, then zeros, as the
// layer-by-layer GEMM's A holds skip0's K padding): rows 0-15's 16 bytes by ldmatrix.x2 (lanes
// 0-15 give the row addresses), bytes 16-31 two zero registers.
__device__ __forceinline__ void load_staged_fragment(uint32_t (&a)[1][4], const uint8_t* st_s, int lane) {
    uint32_t lo[2];
    ldmatrix_x2(lo, st_s + (lane & 15) * kStStride);
    a[0][0] = lo[0];
    a[0][1] = lo[1];
    a[0][2] = 0u;
    a[0][3] = 0u;
}

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

// Each warp walks 16-token tiles (warp-level grid stride, the next tile's rows copied while it
// computes the current one): expand0's norm -> e4m3 rows; then per quadrant pair (dy = 0, then 1;
// the pair's two quadrants are dx = 0, 1), per quadrant skip0 and that quadrant's 32 expand0
// columns side by side (the same fragment positions, so each lane holds both terms of its d0
// elements) -> the pair's 32 d0 rows -> the head norm (one row per lane) -> the head linear ->
// f32 outputs. kHeadMlp: also the head MLP on the pair's 32 rows (head_mlp_layer for fc1 and fc2,
// head_mlp_fc3), added to head outputs 0-7 before the head's store. A pair rather than one
// quadrant at a time (twenty-third session): the kernel is bound by instruction issue (ncu, H200:
// 70% of issue slots busy, 2 of 4 warps per scheduler eligible), and the pair halves the head
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
    uint8_t* w1_s = smem + kCtaBytes;  // kHeadMlp only
    uint8_t* w2_s = w1_s + kMlpN * kMlpStride;
    uint8_t* w3_s = w2_s + kMlpN * kMlpStride;
    float4* sb1_s = reinterpret_cast<float4*>(w3_s + kMlpN3 * kMlpStride);
    float4* sb2_s = sb1_s + kMlpN / 2;
    float4* sb3_s = sb2_s + kMlpN / 2;
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    uint8_t* x_base = smem + kCtaBytes + (kHeadMlp ? kMlpBytes : 0) + warp * kWarpBytes;  // 2 dec1 row buffers
    uint8_t* st_base = x_base + 2 * kXBufBytes;              // 2 staged row buffers
    uint8_t* en_s = st_base + 2 * kStBufBytes;               // expand0's norm rows
    uint8_t* a_s = en_s + 16 * kAStride;                     // a pair's d0 rows, then its hidden rows
    uint8_t* hn_s = a_s + 32 * kAStride;                     // the pair's head-norm rows

    cp_async_matrix(we_s, kWeStride, p.w_expand, 4 * kC0, kC1);
    cp_async_matrix(ws_s, kWsStride, p.w_skip, kC0, 32);
    cp_async_matrix(wh_s, kWhStride, p.w_head, kHeadN, kC0);
    auto pairs = [](float4* dst, const float* scale, const float* bias, int n) {
        for (int i = threadIdx.x; i < n / 2; i += blockDim.x)
            dst[i] = make_float4(scale[2 * i], scale[2 * i + 1], bias[2 * i], bias[2 * i + 1]);
    };
    pairs(sbe_s, p.scale_expand, p.bias_expand, 4 * kC0);
    pairs(sbs_s, p.scale_skip, p.bias_skip, kC0);
    pairs(sbh_s, p.scale_head, p.bias_head, kHeadN);
    for (int i = threadIdx.x; i < kC1; i += blockDim.x) gain_e[i] = p.expand_gain[i];
    for (int i = threadIdx.x; i < kC0; i += blockDim.x) gain_h[i] = p.head_gain[i];
    if constexpr (kHeadMlp) {
        cp_async_matrix(w1_s, kMlpStride, p.w_fc1, kMlpN, kMlpK);
        cp_async_matrix(w2_s, kMlpStride, p.w_fc2, kMlpN, kMlpK);
        cp_async_matrix(w3_s, kMlpStride, p.w_fc3, kMlpN3, kMlpK);
        pairs(sb1_s, p.scale_fc1, p.bias_fc1, kMlpN);
        pairs(sb2_s, p.scale_fc2, p.bias_fc2, kMlpN);
        pairs(sb3_s, p.scale_fc3, p.bias_fc3, kHeadMlpOutputs);
    }
    const int tiles = p.width1 * p.height1 / 16;
    const int tile_step = static_cast<int>(gridDim.x) * kWarps;
    int tile = static_cast<int>(blockIdx.x) * kWarps + warp;
    if (tile < tiles) load_tile(p, tile, x_base, st_base, lane);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();  // weights, scales, gains, padding (and every warp's first tile) in place

    const int g = lane >> 2, t = lane & 3;
    const FragmentRows f = fragment_rows(lane);
    const int fine_width = 2 * p.width1;

    for (int buf = 0; tile < tiles; tile += tile_step, buf ^= 1) {
        const int next = tile + tile_step;
        if (next < tiles) {
            // buffers buf ^ 1 were last read in the previous iteration, before its closing __syncwarp
            load_tile(p, next, x_base + (buf ^ 1) * kXBufBytes, st_base + (buf ^ 1) * kStBufBytes, lane);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncwarp();
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

            // head: norm (one row per lane) -> e4m3 rows -> linear 32 -> 16 -> f32.
            rms_normalise_tile32<kC0>(a_s, kD0Stride, gain_h, hn_s, kHnStride, p.precision, lane);
            __syncwarp();
            uint32_t ah[2][4];
#pragma unroll
            for (int i = 0; i < 2; ++i) ldmatrix_x4(ah[i], hn_s + (16 * i + f.a_row) * kHnStride + f.a_col);
            float acc_h[2][2][4];
            float y3[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};  // MLP outputs 0-7 (kHeadMlp)
            if constexpr (kHeadMlp) {
                // The head MLP -> head outputs 0-7 (the first n8 tile). fc1's A per tile: the head
                // norm's fragment (K 0-31: the 32 normalised head inputs) and the staged one (K 32-63:
                // the 16 slots, then 16 zero bytes; read again from the tile's staged rows rather
                // than held through the norm). The d0 rows in a_s were last read by the head norm,
                // before the __syncwarp above: a_s takes the hidden rows h1, then h2.
                uint32_t a[2][2][4];
#pragma unroll
                for (int i = 0; i < 2; ++i) {
                    uint32_t as[1][4];
                    load_staged_fragment(as, st_s + (2 * pair + i) * 16 * kStStride, lane);
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        a[i][0][j] = ah[i][j];
                        a[i][1][j] = as[0][j];
                    }
                }
                head_mlp_layer(a, w1_s, sb1_s, a_s, f, g, t, false);
                __syncwarp();
#pragma unroll
                for (int i = 0; i < 2; ++i) load_a_fragments<2>(a[i], a_s + 16 * i * kHStride, kHStride, f);
                head_mlp_layer(a, w2_s, sb2_s, a_s, f, g, t, true);
                __syncwarp();
#pragma unroll
                for (int i = 0; i < 2; ++i) load_a_fragments<2>(a[i], a_s + 16 * i * kHStride, kHStride, f);
                // The head linear, issued here to keep its accumulators' registers free through
                // fc1 and fc2; its A fragments read again from the head-norm rows (which the MLP
                // leaves alone) rather than held through them.
#pragma unroll
                for (int i = 0; i < 2; ++i) ldmatrix_x4(ah[i], hn_s + (16 * i + f.a_row) * kHnStride + f.a_col);
                head_linear_pair(acc_h, ah, wh_s, f);
                head_mlp_fc3(a, w3_s, sb3_s, f, t, y3);
            } else {
                head_linear_pair(acc_h, ah, wh_s, f);
            }
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int nt = 0; nt < 2; ++nt) {
                    const int n = nt * 8 + 2 * t;
                    const float4 sbh = sbh_s[n / 2];
#pragma unroll
                    for (int half = 0; half < 2; ++half) {
                        const int r = g + 8 * half;
                        float h0 = scale_bias(acc_h[i][nt][2 * half], sbh.x, sbh.z);
                        float h1 = scale_bias(acc_h[i][nt][2 * half + 1], sbh.y, sbh.w);
                        if (kHeadMlp && nt == 0) {  // head_mlp_add's one add; outputs 8-15 untouched
                            h0 = exact::add(h0, y3[i][2 * half]);
                            h1 = exact::add(h1, y3[i][2 * half + 1]);
                        }
                        *reinterpret_cast<float2*>(p.head + pixel_of(i, r) * kHeadN + n) = make_float2(h0, h1);
                    }
                }
            __syncwarp();  // the head-norm (and h2) rows are read before the next pair rewrites them
        }
    }
    cp_async_wait<0>();  // no copy is left in flight at exit
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("lite_tail_fused: ") + what);
}

template <bool kHeadMlp>
void launch(const LiteTailArgs& p, cudaStream_t stream) {
    constexpr int smem = kSmemBytes<kHeadMlp>;
    static bool configured = false;  // once per instantiation
    if (!configured) {
        SWINUP_CUDA_CHECK(
            cudaFuncSetAttribute(lite_tail_kernel<kHeadMlp>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        configured = true;
    }
    int per_sm = 0;
    SWINUP_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lite_tail_kernel<kHeadMlp>, kWarps * 32, smem));
    require(per_sm > 0, "no CTA fits on an SM");
    const int tiles = p.width1 * p.height1 / 16;
    const int blocks = std::max(1, std::min(device_limits().sms * per_sm, (tiles + kWarps - 1) / kWarps));
    lite_tail_kernel<kHeadMlp><<<blocks, kWarps * 32, smem, stream>>>(p);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace

bool lite_tail_fused_supported(bool head_mlp) {
    return (head_mlp ? kSmemBytes<true> : kSmemBytes<false>) <= device_limits().smem_optin;
}

void lite_tail_fused(const LiteTailArgs& p, cudaStream_t stream) {
    require(p.d1 && p.staged && p.expand_gain && p.w_expand && p.scale_expand && p.bias_expand && p.w_skip &&
                p.scale_skip && p.bias_skip && p.head_gain && p.w_head && p.scale_head && p.bias_head && p.head,
            "null operand");
    const bool head_mlp = p.w_fc1 != nullptr;
    if (head_mlp)
        require(p.scale_fc1 && p.bias_fc1 && p.w_fc2 && p.scale_fc2 && p.bias_fc2 && p.w_fc3 && p.scale_fc3 &&
                    p.bias_fc3,
                "null head-MLP operand");
    require(p.width1 > 0 && p.height1 > 0 && p.width1 % 16 == 0, "the level-1 grid width must be a multiple of 16");
    for (const void* a : {static_cast<const void*>(p.d1), static_cast<const void*>(p.staged),
                          static_cast<const void*>(p.w_expand), static_cast<const void*>(p.w_skip),
                          static_cast<const void*>(p.w_head), static_cast<const void*>(p.w_fc1),
                          static_cast<const void*>(p.w_fc2), static_cast<const void*>(p.w_fc3)})
        require(reinterpret_cast<uintptr_t>(a) % 16 == 0, "operands must be 16-byte aligned");
    require(lite_tail_fused_supported(head_mlp), "the kernel's shared memory does not fit on this device");
    if (head_mlp) launch<true>(p, stream);
    else launch<false>(p, stream);
}

}  // namespace swinup::cuda
