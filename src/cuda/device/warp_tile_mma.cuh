// A warp's 16-token tile times a weight matrix held in shared memory, on e4m3 tensor cores: the
// two loops of the fused block kernels (mlp_fused.cu, attention_fused.cu). Each output is one f32
// accumulator that starts at +0 and takes the K chunks [32c, 32c + 32) in increasing order, one
// mma.sync.m16n8k32 per chunk, with A and W fragments at gemm_e4m3_kernel's positions (the tile's
// row r at fragment row r, column n at n % 16 of its 16-column step): the layer-by-layer GEMM's
// sums, so the fused kernels' outputs equal its bytes.
#pragma once

#include <cstdint>

#include "cuda/device/device_math.cuh"
#include "cuda/device/mma.cuh"
#include "numeric/exact_math.h"

namespace swinup::cuda {

// ldmatrix row addresses (gemm_e4m3_kernel's): A matrices (rows 0-7 | 8-15) x (k 0-15 | 16-31)
// -> a[0..3]; W matrices (n 0-7, k 0-15), (n 0-7, k 16-31), (n 8-15, k 0-15), (n 8-15, k 16-31).
struct FragmentRows {
    int a_row, a_col, w_row, w_col;
};
__device__ __forceinline__ FragmentRows fragment_rows(int lane) {
    return {(lane & 7) + ((lane >> 3) & 1) * 8, (lane >> 4) * 16, (lane & 7) + (lane >> 4) * 8,
            ((lane >> 3) & 1) * 16};
}

// The A fragments of a 16-row e4m3 tile (row stride a_stride bytes) for its first kKChunks chunks.
template <int kKChunks>
__device__ __forceinline__ void load_a_fragments(uint32_t (&a)[kKChunks][4], const uint8_t* a_s, int a_stride,
                                                 const FragmentRows& f) {
#pragma unroll
    for (int kc = 0; kc < kKChunks; ++kc) ldmatrix_x4(a[kc], a_s + f.a_row * a_stride + kc * 32 + f.a_col);
}

// Columns n0 .. n0 + 15 (two n8 tiles) of A x W^T, A in registers (load_a_fragments), W rows
// [n][k] in shared memory (stride w_stride bytes).
template <int kKChunks>
__device__ __forceinline__ void mma_step16(float (&acc)[2][4], const uint32_t (&a)[kKChunks][4], const uint8_t* w_s,
                                           int w_stride, int n0, const FragmentRows& f) {
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[nt][j] = 0.0f;
#pragma unroll
    for (int kc = 0; kc < kKChunks; ++kc) {  // K chunks in increasing order
        uint32_t b[4];
        ldmatrix_x4(b, w_s + (n0 + f.w_row) * w_stride + kc * 32 + f.w_col);
        mma_m16n8k32_e4m3(acc[0], a[kc], b[0], b[1]);
        mma_m16n8k32_e4m3(acc[1], a[kc], b[2], b[3]);
    }
}

// The same columns with A read from shared memory (a 16-row e4m3 tile, row stride a_stride bytes)
// one K chunk at a time instead of held in registers: the same fragments, so the same sums, in
// 16 fewer registers (for kernels whose occupancy is bound by registers: the team kernels).
template <int kKChunks>
__device__ __forceinline__ void mma_step16_shared_a(float (&acc)[2][4], const uint8_t* a_s, int a_stride,
                                                    const uint8_t* w_s, int w_stride, int n0, const FragmentRows& f) {
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[nt][j] = 0.0f;
#pragma unroll
    for (int kc = 0; kc < kKChunks; ++kc) {  // K chunks in increasing order
        uint32_t a[4], b[4];
        ldmatrix_x4(a, a_s + f.a_row * a_stride + kc * 32 + f.a_col);
        ldmatrix_x4(b, w_s + (n0 + f.w_row) * w_stride + kc * 32 + f.w_col);
        mma_m16n8k32_e4m3(acc[0], a, b[0], b[1]);
        mma_m16n8k32_e4m3(acc[1], a, b[2], b[3]);
    }
}

// All kSteps 16-column steps (N = 16 kSteps) of A x W^T at once, A (16 rows x kK bytes) read from
// shared memory one K chunk at a time: one A fragment serves every step, and each accumulator
// still takes the chunks in increasing order.
template <int kSteps>
__device__ __forceinline__ void zero_accumulators(float (&acc)[kSteps][2][4]) {
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
        for (int nt = 0; nt < 2; ++nt)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[s][nt][j] = 0.0f;
}

// Adds the next kK of K (w_s points at that K range's first column of W) to accumulators that
// already hold the earlier chunks: a K loop split into parts keeps its order.
template <int kK, int kSteps>
__device__ __forceinline__ void mma_all_steps_accumulate(float (&acc)[kSteps][2][4], const uint8_t* a_s,
                                                         int a_stride, const uint8_t* w_s, int w_stride,
                                                         const FragmentRows& f) {
#pragma unroll 2
    for (int k0 = 0; k0 < kK; k0 += 32) {  // K chunks in increasing order
        uint32_t a[4];
        ldmatrix_x4(a, a_s + f.a_row * a_stride + k0 + f.a_col);
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
            uint32_t b[4];
            ldmatrix_x4(b, w_s + (s * 16 + f.w_row) * w_stride + k0 + f.w_col);
            mma_m16n8k32_e4m3(acc[s][0], a, b[0], b[1]);
            mma_m16n8k32_e4m3(acc[s][1], a, b[2], b[3]);
        }
    }
}

template <int kK, int kSteps>
__device__ __forceinline__ void mma_all_steps(float (&acc)[kSteps][2][4], const uint8_t* a_s, int a_stride,
                                              const uint8_t* w_s, int w_stride, const FragmentRows& f) {
    zero_accumulators(acc);
    mma_all_steps_accumulate<kK, kSteps>(acc, a_s, a_stride, w_s, w_stride, f);
}

// (scale[2i], scale[2i + 1], bias[2i], bias[2i + 1]) for column pair i < n / 2, staged by the
// CTA once: the epilogue of a fragment's two columns reads one float4.
__device__ __forceinline__ void stage_scale_bias_pairs(float4* dst, const float* scale, const float* bias, int n) {
    for (int i = threadIdx.x; i < n / 2; i += blockDim.x)
        dst[i] = make_float4(scale[2 * i], scale[2 * i + 1], bias[2 * i], bias[2 * i + 1]);
}

// The epilogue of mma_step16's columns n0 .. n0 + 15: y = scale_bias(acc) for each of the
// fragment owner's column pairs (sb_s as stage_scale_bias_pairs leaves it), handed to
// store(row, col, y0, y1) with row g or g + 8 of the tile and col = col0 + 8 nt + 2t, where the
// caller keeps the step's columns (col0 = n0, or the step's place in a part of them); y0 belongs
// at col, y1 at col + 1. The caller's store is the layer-by-layer GEMM's epilogue (an f16 pair,
// a GELU -> e4m3 pair).
template <class Store>
__device__ __forceinline__ void scale_bias_step16(const float (&acc)[2][4], const float4* sb_s, int n0, int col0,
                                                  int g, int t, Store&& store) {
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
        const float4 sb = sb_s[(n0 + nt * 8) / 2 + t];
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const float y0 = scale_bias(acc[nt][2 * half], sb.x, sb.z);
            const float y1 = scale_bias(acc[nt][2 * half + 1], sb.y, sb.w);
            store(g + 8 * half, col0 + nt * 8 + 2 * t, y0, y1);
        }
    }
}

// The residual epilogue of one 16-column step's accumulators (columns n0 .. n0 + 15), in place in
// the tile's f16 rows x_s (row stride x_stride bytes; the x the block's norm read, the value the
// layer-by-layer GEMM's residual_add_f16 reads from device memory): x = f16(f32(x) + y),
// y = scale_bias(acc), each element by its fragment owner (rows g, g + 8; columns 2t, 2t + 1 of
// each n8 tile). sb_s holds (scale, scale, bias, bias) per column pair.
__device__ __forceinline__ void residual_add_f16_step16(const float (&acc)[2][4], uint8_t* x_s, int x_stride,
                                                        const float4* sb_s, int n0, int g, int t) {
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
        const int n = n0 + nt * 8 + 2 * t;
        const float4 sb = sb_s[n / 2];
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            uint32_t* xw = reinterpret_cast<uint32_t*>(x_s + (g + 8 * half) * x_stride + n * 2);
            const uint32_t o = *xw;
            const float y0 = scale_bias(acc[nt][2 * half], sb.x, sb.z);
            const float y1 = scale_bias(acc[nt][2 * half + 1], sb.y, sb.w);
            *xw = f16x2(exact::add(f16_lo(o), y0), exact::add(f16_hi(o), y1));
        }
    }
}

// The same for all kSteps steps of mma_all_steps' accumulators (columns 0 .. 16 kSteps - 1).
template <int kSteps>
__device__ __forceinline__ void residual_add_f16_rows(const float (&acc)[kSteps][2][4], uint8_t* x_s, int x_stride,
                                                      const float4* sb_s, int g, int t) {
#pragma unroll
    for (int s = 0; s < kSteps; ++s) residual_add_f16_step16(acc[s], x_s, x_stride, sb_s, s * 16, g, t);
}

}  // namespace swinup::cuda
