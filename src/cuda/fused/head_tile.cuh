// The network's head on a warp's 32 render pixels (two 16-row tiles), in registers and shared
// memory: head RMSNorm -> e4m3 rows -> head.linear (32 -> 16, f32) and, with the head MLP
// (weights format 3; docs/model-spec.md, "The head MLP"), fc1 (the head norm's 32 bytes ++ the
// pixel's 16 staged slots) -> ReLU -> e4m3, fc2 likewise, fc3 (8 outputs) added to head outputs
// 0-7. The device code of both kernels that compute the head: lite's fused tail
// (lite_tail_fused.cu, whose 32 pixels are a quadrant pair of 16 level-1 tokens) and full's fused
// head (head_fused.cu, 32 consecutive pixels). One definition, so that both equal the same
// layer-by-layer launches (rms_norm_e4m3 and gemm_e4m3 head store_f32; head_mlp_input, the three
// gemm_e4m3 of the head MLP and head_mlp_add) by the same argument:
//   - the norm with rms_norm_row.cuh's pieces (the norm kernel's own operation sequence);
//   - every product one f32 accumulator from +0 over the same mma.sync.m16n8k32 e4m3 K chunks in
//     increasing order, the A and W bytes at the GEMM's fragment positions (warp_tile_mma.cuh;
//     a pixel's row within the 16-row tile does not change its sums);
//   - the same epilogue operations on the same values: device_math.cuh's scale_bias, then f32,
//     or ReLU -> e4m3 (relu_e4m3x2 below), and head_mlp_add's one IEEE add.
// Moved here from lite_tail_fused.cu (2026-12-03, ed86321) when full got its fused head; lite's
// kernel compiles to the same registers and no spills as before the move.
#pragma once

#include <cstdint>

#include "numeric/exact_math.h"
#include "model/model_spec.h"
#include "cuda/device/cp_async.cuh"
#include "cuda/device/device_math.cuh"
#include "cuda/fused/head_weights.h"
#include "cuda/device/mma.cuh"
#include "cuda/layers/rms_norm_row.cuh"
#include "cuda/device/warp_tile_mma.cuh"
#include "swinup/swinup.h"

namespace swinup::cuda {

// ---- shapes and shared-memory row strides ----------------------------------------------------
constexpr int kHeadC = 32;          // the head's input channels (d0)
constexpr int kHeadN = kHeadOutputs;  // head.linear's outputs per pixel
constexpr int kHeadRowPad = 16;     // as in the other fused kernels: rows of an odd number of 16-byte
                                    // units, so ldmatrix phases and quarter-warp 16-byte accesses
                                    // are conflict-free
constexpr int kHeadD0Stride = 2 * kHeadC + kHeadRowPad;  // a pixel's f16 d0 row
constexpr int kHeadHnStride = kHeadC + kHeadRowPad;      // the head norm's e4m3 row
constexpr int kHeadWStride = kHeadC + kHeadRowPad;       // W_head [16][32]
constexpr int kHeadStStride = kSlots;  // the staged rows: 16 bytes, no padding (eight rows are 128
                                       // contiguous bytes: conflict-free for ldmatrix)
constexpr int kMlpK = 64;    // the head MLP's K: fc1's 48 inputs padded to 64, fc2's and fc3's 64
constexpr int kMlpN = kHeadMlpHidden;  // fc1's and fc2's outputs
constexpr int kMlpN3 = 16;   // fc3's rows in shared memory: its 8 outputs and the 8 zero rows of the
                             // GEMM's N padding (one ldmatrix.x4 reads 16 rows)
constexpr int kMlpStride = kMlpK + kHeadRowPad;  // W1, W2, W3 rows
constexpr int kHStride = kMlpN + kHeadRowPad;    // a pixel's hidden e4m3 row (h1, then h2)
static_assert(kHeadMlpInputs == kHeadC + kSlots && kMlpK == 2 * 32, "fc1's K chunks: the head norm, the slots");
static_assert(kHeadMlpHidden == kMlpK && kHeadMlpOutputs == 8, "fc3's outputs are the head's first n8 tile");
static_assert(kHStride == kHeadD0Stride, "the hidden rows reuse the pair's d0 rows (80 bytes each)");

// The head MLP's weights in shared memory, one region per CTA: W1 [64][64 + 16], W2 [64][64 + 16],
// W3 [16][64 + 16] and the (scale, scale, bias, bias) pairs of fc1's and fc2's 64 columns and
// fc3's 8: 12,608 bytes.
constexpr int kHeadMlpBytes = (2 * kMlpN + kMlpN3) * kMlpStride + (2 * kMlpN / 2 + kHeadMlpOutputs / 2) * 16;
static_assert(kHeadMlpBytes == 12608 && kHeadMlpBytes % 16 == 0, "16-byte aligned regions");

// Where a kernel keeps the head's weights in shared memory (its CTA region's layout is its own).
struct HeadSmem {
    const uint8_t* wh_s;   // W_head [16][kHeadWStride]
    const float4* sbh_s;   // head.linear's (scale, scale, bias, bias) per column pair
    const float* gain_s;   // the head norm's gain [32]
    // The head MLP (kHeadMlpBytes from w1_s, head_mlp_smem's layout; unused without it).
    const uint8_t* w1_s;
    const uint8_t* w2_s;
    const uint8_t* w3_s;
    const float4* sb1_s;
    const float4* sb2_s;
    const float4* sb3_s;
};

// The head MLP's pointers into its region (kHeadMlpBytes at `region`, 16-byte aligned).
struct HeadMlpSmem {
    uint8_t* w1_s;
    uint8_t* w2_s;
    uint8_t* w3_s;
    float4* sb1_s;
    float4* sb2_s;
    float4* sb3_s;
};
__device__ __forceinline__ HeadMlpSmem head_mlp_smem(uint8_t* region) {
    HeadMlpSmem m;
    m.w1_s = region;
    m.w2_s = m.w1_s + kMlpN * kMlpStride;
    m.w3_s = m.w2_s + kMlpN * kMlpStride;
    m.sb1_s = reinterpret_cast<float4*>(m.w3_s + kMlpN3 * kMlpStride);
    m.sb2_s = m.sb1_s + kMlpN / 2;
    m.sb3_s = m.sb2_s + kMlpN / 2;
    return m;
}

// ---- weight staging (the CTA, once) --------------------------------------------------------------
// The CTA's copies of the head MLP's weights into its region (cp.async: the caller commits and
// waits, then synchronises the CTA). fc1 [64, 64] (K zero-padded from 48 at upload), fc2 [64, 64],
// fc3 [16, 64] (rows 8-15 the GEMM's zero N padding; only its 8 scale/bias are read).
__device__ __forceinline__ void stage_head_mlp(const HeadMlpSmem& m, const uint8_t* w_fc1, const float* scale_fc1,
                                               const float* bias_fc1, const uint8_t* w_fc2, const float* scale_fc2,
                                               const float* bias_fc2, const uint8_t* w_fc3, const float* scale_fc3,
                                               const float* bias_fc3) {
    cp_async_matrix(m.w1_s, kMlpStride, w_fc1, kMlpN, kMlpK);
    cp_async_matrix(m.w2_s, kMlpStride, w_fc2, kMlpN, kMlpK);
    cp_async_matrix(m.w3_s, kMlpStride, w_fc3, kMlpN3, kMlpK);
    stage_scale_bias_pairs(m.sb1_s, scale_fc1, bias_fc1, kMlpN);
    stage_scale_bias_pairs(m.sb2_s, scale_fc2, bias_fc2, kMlpN);
    stage_scale_bias_pairs(m.sb3_s, scale_fc3, bias_fc3, kHeadMlpOutputs);
}

// The CTA's copies of the head's weights (cp.async, as stage_head_mlp): W_head [16][32] at wh_s
// (row stride kHeadWStride), head.linear's (scale, scale, bias, bias) pairs, the norm's gains and,
// kHeadMlp, the head MLP's region.
template <bool kHeadMlp>
__device__ __forceinline__ void stage_head(const HeadWeights& w, uint8_t* wh_s, float4* sbh_s, float* gain_s,
                                           const HeadMlpSmem& mlp) {
    cp_async_matrix(wh_s, kHeadWStride, w.w, kHeadN, kHeadC);
    stage_scale_bias_pairs(sbh_s, w.scale, w.bias, kHeadN);
    for (int i = threadIdx.x; i < kHeadC; i += blockDim.x) gain_s[i] = w.gain[i];
    if constexpr (kHeadMlp)
        stage_head_mlp(mlp, w.w_fc1, w.scale_fc1, w.bias_fc1, w.w_fc2, w.scale_fc2, w.bias_fc2, w.w_fc3, w.scale_fc3,
                       w.bias_fc3);
}

// ---- the pieces --------------------------------------------------------------------------------
// e4m3x2 of two ReLU outputs in one instruction: cvt's .relu clamps negative results to +0, as
// relu's `y > 0 ? y : 0` does before the conversion. The operands are never NaN or -0: y = t +
// bias with t = acc * scale, acc a finite sum from +0 of e4m3 products (so +0 or at least 2^-18 in
// magnitude) and scale a positive normal power of two (src/model/weights.cpp checks it), so t is
// +0 or at least 2^-144 in magnitude (no flush to zero in this build), never -0, and y = -0 would
// need t = -0. So device_math.cuh's e4m3x2(relu, relu) and this give the same bytes, without the NaN
// fix-ups and the two max (the MLP's issue slots are most of its time).
__device__ __forceinline__ uint16_t relu_e4m3x2(float lo, float hi) {
    uint16_t r;
    asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %2, %1;\n" : "=h"(r) : "f"(lo), "f"(hi));
    return r;
}

// One hidden layer of the head MLP on a pair's 32 rows (two 16-row tiles, A fragments
// a[tile][K chunk], K = 64) times W (kMlpN rows in shared memory), with the GEMM's relu_e4m3
// epilogue (scale_bias, relu, e4m3 of each column pair) into the pair's e4m3 rows h_s (tile i's
// rows at 16 i). In two halves of 32 columns: each half issues its 16 mma.sync (2 K chunks x 2
// column steps x 2 tiles x 2 n8 tiles; each accumulator takes its chunks in increasing order from
// +0) before its epilogue reads a result, and each W fragment serves both tiles, so the pair reads
// W from shared memory once where one tile at a time read it twice. `overwrite`: h_s holds the
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
// outputs; the second is the layer-by-layer GEMM's zero N padding, whose mma the fused kernels
// skip), each W fragment serving both tiles. y3[tile]: this lane's outputs at the head
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
    ldmatrix_x4(b, wh_s + f.w_row * kHeadWStride + f.w_col);
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        mma_m16n8k32_e4m3(acc[i][0], ah[i], b[0], b[1]);
        mma_m16n8k32_e4m3(acc[i][1], ah[i], b[2], b[3]);
    }
}

// The staged rows' A fragment of a 16-row tile (K chunk of 32: the 16 slots, then zeros, as the
// layer-by-layer GEMMs' A holds skip0's and fc1's K padding): rows 0-15's 16 bytes by ldmatrix.x2
// (lanes 0-15 give the row addresses), bytes 16-31 two zero registers.
__device__ __forceinline__ void load_staged_fragment(uint32_t (&a)[1][4], const uint8_t* st_s, int lane) {
    uint32_t lo[2];
    ldmatrix_x2(lo, st_s + (lane & 15) * kHeadStStride);
    a[0][0] = lo[0];
    a[0][1] = lo[1];
    a[0][2] = 0u;
    a[0][3] = 0u;
}

// ---- the head of a pair --------------------------------------------------------------------------
// The head of 32 pixels whose f16 d0 rows are complete in d0_s (32 rows of kHeadD0Stride; row
// 16 i + r is row r of tile i) and whose staged rows are st_s (32 rows of kHeadStStride, the same
// order): the head norm (one row per lane) -> e4m3 rows hn_s (32 x kHeadHnStride) -> head.linear;
// kHeadMlp: also the head MLP on the 32 rows, its hidden rows h1, then h2 in d0_s (dead once the
// head norm has read them, and as wide: kHStride), fc3 added to head outputs 0-7 before the
// head's store. f32 head outputs of row r of tile i at head + pixel_of(i, r) * kHeadN. The caller
// synchronises the warp before (d0_s and st_s complete) and after (hn_s and d0_s are read before
// they are rewritten).
template <bool kHeadMlp, class PixelOf>
__device__ __forceinline__ void head_pair(uint8_t* d0_s, const uint8_t* st_s, uint8_t* hn_s, const HeadSmem& w,
                                          swinup_precision precision, float* head, const PixelOf& pixel_of,
                                          const FragmentRows& f, int lane, int g, int t) {
    // head: norm (one row per lane) -> e4m3 rows -> linear 32 -> 16 -> f32.
    rms_normalise_tile32<kHeadC>(d0_s, kHeadD0Stride, w.gain_s, hn_s, kHeadHnStride, precision, lane);
    __syncwarp();
    uint32_t ah[2][4];
#pragma unroll
    for (int i = 0; i < 2; ++i) ldmatrix_x4(ah[i], hn_s + (16 * i + f.a_row) * kHeadHnStride + f.a_col);
    float acc_h[2][2][4];
    float y3[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};  // MLP outputs 0-7 (kHeadMlp)
    if constexpr (kHeadMlp) {
        // The head MLP -> head outputs 0-7 (the first n8 tile). fc1's A per tile: the head norm's
        // fragment (K 0-31: the 32 normalised head inputs) and the staged one (K 32-63: the 16
        // slots, then 16 zero bytes, fc1's K padding from 48; read again from the staged rows
        // rather than held through the norm). The d0 rows were last read by the head norm, before
        // the __syncwarp above: d0_s takes the hidden rows h1, then h2.
        uint32_t a[2][2][4];
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            uint32_t as[1][4];
            load_staged_fragment(as, st_s + i * 16 * kHeadStStride, lane);
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                a[i][0][j] = ah[i][j];
                a[i][1][j] = as[0][j];
            }
        }
        head_mlp_layer(a, w.w1_s, w.sb1_s, d0_s, f, g, t, false);
        __syncwarp();
#pragma unroll
        for (int i = 0; i < 2; ++i) load_a_fragments<2>(a[i], d0_s + 16 * i * kHStride, kHStride, f);
        head_mlp_layer(a, w.w2_s, w.sb2_s, d0_s, f, g, t, true);
        __syncwarp();
#pragma unroll
        for (int i = 0; i < 2; ++i) load_a_fragments<2>(a[i], d0_s + 16 * i * kHStride, kHStride, f);
        // The head linear, issued here to keep its accumulators' registers free through fc1 and
        // fc2; its A fragments read again from the head-norm rows (which the MLP leaves alone)
        // rather than held through them.
#pragma unroll
        for (int i = 0; i < 2; ++i) ldmatrix_x4(ah[i], hn_s + (16 * i + f.a_row) * kHeadHnStride + f.a_col);
        head_linear_pair(acc_h, ah, w.wh_s, f);
        head_mlp_fc3(a, w.w3_s, w.sb3_s, f, t, y3);
    } else {
        head_linear_pair(acc_h, ah, w.wh_s, f);
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) {
            const int n = nt * 8 + 2 * t;
            const float4 sbh = w.sbh_s[n / 2];
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int r = g + 8 * half;
                float h0 = scale_bias(acc_h[i][nt][2 * half], sbh.x, sbh.z);
                float h1 = scale_bias(acc_h[i][nt][2 * half + 1], sbh.y, sbh.w);
                if (kHeadMlp && nt == 0) {  // head_mlp_add's one add; outputs 8-15 untouched
                    h0 = exact::add(h0, y3[i][2 * half]);
                    h1 = exact::add(h1, y3[i][2 * half + 1]);
                }
                *reinterpret_cast<float2*>(head + pixel_of(i, r) * kHeadN + n) = make_float2(h0, h1);
            }
        }
}

}  // namespace swinup::cuda
