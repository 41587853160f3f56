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
// of a tile's 16 dec1 rows [16][128 + 16] and of its 64 pixels' staged rows [4][16][32 + 16]
// (bytes 16-31 stay zero: skip0's K padding), the e4m3 rows of expand0's norm [16][64 + 16]
// (read into registers, then the same space holds a quadrant's d0 rows, f16 [16][32 * 2 + 16]) and
// the head norm's e4m3 rows [16][32 + 16].
constexpr int kWeStride = kC1 + kRowPad, kWsStride = 32 + kRowPad, kWhStride = kC0 + kRowPad;
constexpr int kXStride = 2 * kC1 + kRowPad, kStStride = 32 + kRowPad, kAStride = kC1 + kRowPad;
constexpr int kD0Stride = 2 * kC0 + kRowPad, kHnStride = kC0 + kRowPad;
constexpr int kCtaBytes = 4 * kC0 * kWeStride + kC0 * kWsStride + kHeadN * kWhStride +
                          (4 * kC0 / 2 + kC0 / 2 + kHeadN / 2) * 16 + (kC1 + kC0) * 4;
constexpr int kXBufBytes = 16 * kXStride, kStBufBytes = 4 * 16 * kStStride;
constexpr int kWarpBytes = 2 * kXBufBytes + 2 * kStBufBytes + 16 * kAStride + 16 * kHnStride;
static_assert(kAStride == kD0Stride, "a quadrant's d0 rows reuse the norm rows' space");
static_assert(kCtaBytes % 16 == 0 && kWarpBytes % 16 == 0, "16-byte aligned regions");

// With the head MLP (the kernel's kHeadMlp instantiation; the other keeps the layout above), after
// the CTA's region: W1 [64][64 + 16], W2 [64][64 + 16], W3 [16][64 + 16] and the scale/bias pairs
// of fc1's and fc2's 64 columns and fc3's 8. Nothing per warp: a quadrant's hidden rows (e4m3
// [16][64 + 16]) take the d0 rows' space, dead once the head norm has read them. 12,608 bytes:
// 231,744 in all, within the H200's 232,448 per block (the 16 warps stay; fewer would leave each
// SM one CTA with less latency hiding for the same weights).
constexpr int kMlpStride = kMlpK + kRowPad, kHStride = kMlpN + kRowPad;
static_assert(kHStride == kAStride, "a quadrant's hidden rows reuse the d0 rows' space");
constexpr int kMlpBytes = (2 * kMlpN + kMlpN3) * kMlpStride + (2 * kMlpN / 2 + kHeadMlpOutputs / 2) * 16;
static_assert(kMlpBytes % 16 == 0, "16-byte aligned regions");
template <bool kHeadMlp>
constexpr int kSmemBytes = kCtaBytes + (kHeadMlp ? kMlpBytes : 0) + kWarps * kWarpBytes;
static_assert(kSmemBytes<false> == 219136 && kSmemBytes<true> == 231744, "the layouts stated above");

// e4m3x2 of two ReLU outputs: device_math.cuh's e4m3x2 without its NaN fix-ups, which cannot
// fire here (relu's `y > 0 ? y : 0` is never NaN), so the same bytes in half the instructions of
// the hidden layers' epilogues (the MLP's issue slots are most of its time).
__device__ __forceinline__ uint16_t relu_e4m3x2(float lo, float hi) {
    return static_cast<uint16_t>(
        __nv_cvt_float2_to_fp8x2(make_float2(relu(lo), relu(hi)), __NV_SATFINITE, __NV_E4M3));
}

// The head MLP's hidden layers on a warp's 16 rows, A fragments a (K = 64: two chunks) times W
// (kMlpN rows in shared memory), in two parts so that the mma latencies overlap: head_mlp_mma
// issues all 16 mma.sync of the layer (4 column steps x 2 n8 tiles x 2 K chunks; each accumulator
// takes its chunks in increasing order, the chunk loop being the outer one, so an accumulator's
// two mma are 8 apart) before head_mlp_epilogue reads any result: the GEMM's relu_e4m3 epilogue
// (scale_bias, relu, e4m3 of each column pair) into the e4m3 rows h_s. Before, each 16-column
// step's epilogue waited on that step's two dependent mma. Together with relu_e4m3x2, fc3's one
// n8 tile and the head linear issued late (lite_tail_kernel), the tail took 0.1576 -> 0.1351 ms
// (H200, 1280x720 render; 85 -> 116 registers, no spills; 1 CTA of 16 warps per SM either way).
__device__ __forceinline__ void head_mlp_mma(float (&acc)[kMlpN / 16][2][4], const uint32_t (&a)[2][4],
                                             const uint8_t* w_s, const FragmentRows& f) {
#pragma unroll
    for (int s = 0; s < kMlpN / 16; ++s)
#pragma unroll
        for (int nt = 0; nt < 2; ++nt)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[s][nt][j] = 0.0f;
#pragma unroll
    for (int kc = 0; kc < 2; ++kc) {  // K chunks in increasing order
#pragma unroll
        for (int s = 0; s < kMlpN / 16; ++s) {
            uint32_t b[4];
            ldmatrix_x4(b, w_s + (s * 16 + f.w_row) * kMlpStride + kc * 32 + f.w_col);
            mma_m16n8k32_e4m3(acc[s][0], a[kc], b[0], b[1]);
            mma_m16n8k32_e4m3(acc[s][1], a[kc], b[2], b[3]);
        }
    }
}
__device__ __forceinline__ void head_mlp_epilogue(const float (&acc)[kMlpN / 16][2][4], const float4* sb_s,
                                                  uint8_t* h_s, int g, int t) {
#pragma unroll
    for (int s = 0; s < kMlpN / 16; ++s)
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) {
            const int c = s * 16 + nt * 8 + 2 * t;
            const float4 sb = sb_s[c / 2];
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const float y0 = scale_bias(acc[s][nt][2 * half], sb.x, sb.z);
                const float y1 = scale_bias(acc[s][nt][2 * half + 1], sb.y, sb.w);
                *reinterpret_cast<uint16_t*>(h_s + (g + 8 * half) * kHStride + c) = relu_e4m3x2(y0, y1);
            }
        }
}

// fc3 of the 16 rows (A = the h2 fragments a): only its first n8 tile (the 8 outputs; the second
// is the layer-by-layer GEMM's zero N padding, whose mma the fused kernel skips). y3: this lane's
// outputs at the head accumulator's first n8 tile's positions (rows g, g + 8, columns 2t, 2t + 1).
__device__ __forceinline__ void head_mlp_fc3(const uint32_t (&a)[2][4], const uint8_t* w3_s, const float4* sb3_s,
                                             const FragmentRows& f, int t, float (&y3)[4]) {
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int kc = 0; kc < 2; ++kc) {  // K chunks in increasing order
        uint32_t b[4];
        ldmatrix_x4(b, w3_s + f.w_row * kMlpStride + kc * 32 + f.w_col);
        mma_m16n8k32_e4m3(acc, a[kc], b[0], b[1]);
    }
    const float4 sb = sb3_s[t];
    y3[0] = scale_bias(acc[0], sb.x, sb.z);
    y3[1] = scale_bias(acc[1], sb.y, sb.w);
    y3[2] = scale_bias(acc[2], sb.x, sb.z);
    y3[3] = scale_bias(acc[3], sb.y, sb.w);
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
// computes the current one): expand0's norm -> A fragments in registers; then per quadrant, skip0
// and that quadrant's 32 expand0 columns side by side (the same fragment positions, so each lane
// holds both terms of its d0 elements), d0 -> the head norm -> the head linear -> f32 outputs.
// kHeadMlp: also the head MLP per quadrant, added to head outputs 0-7 (head_mlp_mma and
// head_mlp_epilogue for fc1 and fc2, head_mlp_fc3) between the head norm and the head's store.
// One quadrant loop serves both instantiations; the non-MLP one then holds a quadrant's d0 words
// in registers until they are stored (102 registers instead of 85, still one CTA per SM, which
// the shared memory decides). Tried and measured slower
// (2026-12-02): software-pipelining the quadrants, i.e. computing quadrant q + 1's skip0 + expand0
// into registers during quadrant q's MLP (its d0 words stored at the top of the next iteration):
// 0.142 ms against 0.135 ms without, since the next quadrant's accumulators push the kernel to the
// 128-register cap (4 to 24 bytes of spills, by where the work is put) and the `q < 3` branch cuts
// the basic block that ptxas would interleave.
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
    uint8_t* a_s = st_base + 2 * kStBufBytes;                // expand0's norm rows, then d0 rows
    uint8_t* hn_s = a_s + 16 * kAStride;                     // the head norm's rows

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
    // skip0's K padding: bytes 16-31 of every staged row are zero (the copies write bytes 0-15).
    for (int i = lane; i < 2 * 4 * 16; i += 32)
        *reinterpret_cast<uint4*>(st_base + i * kStStride + 16) = make_uint4(0, 0, 0, 0);

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

        // expand0's norm -> A fragments (K = 64: two chunks).
        rms_normalise_tile16<kC1>(x_s, kXStride, gain_e, a_s, kAStride, p.precision, lane);
        __syncwarp();
        uint32_t ae[kC1 / 32][4];
        load_a_fragments<kC1 / 32>(ae, a_s, kAStride, f);
        __syncwarp();  // the norm rows are read before d0 rows overwrite them

#pragma unroll 1
        for (int q = 0; q < 4; ++q) {
            // Pixel of row r in this quadrant.
            auto pixel_of = [&](int r) {
                return static_cast<size_t>(2 * y + (q >> 1)) * fine_width + 2 * (x0 + r) + (q & 1);
            };
            uint32_t as[1][4], d0w[kC0 / 16][2][2];
            load_a_fragments<1>(as, st_s + q * 16 * kStStride, kStStride, f);
            quadrant_d0(d0w, as, ae, ws_s, we_s, sbs_s, sbe_s, q, f, t);
#pragma unroll
            for (int s = 0; s < kC0 / 16; ++s)
#pragma unroll
                for (int nt = 0; nt < 2; ++nt)
#pragma unroll
                    for (int half = 0; half < 2; ++half) {
                        const int r = g + 8 * half, c = s * 16 + nt * 8 + 2 * t;
                        *reinterpret_cast<uint32_t*>(a_s + r * kD0Stride + c * 2) = d0w[s][nt][half];
                        if (p.d0) *reinterpret_cast<uint32_t*>(p.d0 + pixel_of(r) * kC0 + c) = d0w[s][nt][half];
                    }
            __syncwarp();  // the quadrant's d0 rows complete

            // head: norm -> e4m3 rows -> linear 32 -> 16 -> f32.
            rms_normalise_tile16<kC0>(a_s, kD0Stride, gain_h, hn_s, kHnStride, p.precision, lane);
            __syncwarp();
            uint32_t ah[1][4];
            load_a_fragments<1>(ah, hn_s, kHnStride, f);
            float acc_h[2][4];
            float y3[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // the head MLP's outputs 0-7 of this lane
            if constexpr (kHeadMlp) {
                // The head MLP -> head outputs 0-7 (the first n8 tile). fc1's A: the head norm's
                // fragment (K 0-31: the 32 normalised head inputs) and the staged rows' (K 32-63: the
                // 16 slots, then 16 zero bytes). The d0 rows in a_s were last read by the head norm,
                // before the __syncwarp above: a_s takes the hidden rows h1, then h2.
                uint32_t a[2][4];
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    a[0][j] = ah[0][j];
                    a[1][j] = as[0][j];
                }
                float acc[kMlpN / 16][2][4];
                head_mlp_mma(acc, a, w1_s, f);
                head_mlp_epilogue(acc, sb1_s, a_s, g, t);
                __syncwarp();
                load_a_fragments<2>(a, a_s, kHStride, f);
                head_mlp_mma(acc, a, w2_s, f);
                __syncwarp();  // every lane's h1 fragments are read before h2 overwrites the rows
                head_mlp_epilogue(acc, sb2_s, a_s, g, t);
                __syncwarp();
                load_a_fragments<2>(a, a_s, kHStride, f);
                // The head linear, issued here to keep its accumulators' registers free through
                // fc1 and fc2.
                mma_step16<1>(acc_h, ah, wh_s, kWhStride, 0, f);
                head_mlp_fc3(a, w3_s, sb3_s, f, t, y3);
            } else {
                mma_step16<1>(acc_h, ah, wh_s, kWhStride, 0, f);
            }
#pragma unroll
            for (int nt = 0; nt < 2; ++nt) {
                const int n = nt * 8 + 2 * t;
                const float4 sbh = sbh_s[n / 2];
#pragma unroll
                for (int half = 0; half < 2; ++half) {
                    const int r = g + 8 * half;
                    float h0 = scale_bias(acc_h[nt][2 * half], sbh.x, sbh.z);
                    float h1 = scale_bias(acc_h[nt][2 * half + 1], sbh.y, sbh.w);
                    if (kHeadMlp && nt == 0) {  // head_mlp_add's one add; outputs 8-15 untouched
                        h0 = exact::add(h0, y3[2 * half]);
                        h1 = exact::add(h1, y3[2 * half + 1]);
                    }
                    *reinterpret_cast<float2*>(p.head + pixel_of(r) * kHeadN + n) = make_float2(h0, h1);
                }
            }
            __syncwarp();  // the head-norm (and h2) rows are read before the next quadrant rewrites them
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
