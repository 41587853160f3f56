// Device-side arithmetic shared by the CUDA kernels: the `fast` precision mode's hardware
// approximations, the hardware e4m3 encoder, and f16 packing.
//
// `exact` mode never uses anything here except the encoders: it calls src/numeric/exact_math.h,
// whose device branch uses the never-contracted _rn intrinsics, so CPU and GPU evaluate the same
// operation sequence. `fast` mode swaps in MUFU approximations (ex2.approx, rsqrt.approx,
// rcp.approx, lg2.approx); docs/cuda-kernels.md states the measured bound against `exact`.
#pragma once

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "numeric/exact_math.h"
#include "swinup/swinup.h"

namespace swinup::cuda {

// ---- linear-layer epilogue ------------------------------------------------------------------
// y = t + bias with t = acc * scale: two roundings, as on every backend (model-spec.md). One
// definition for the GEMM and the fused MLP, whose outputs must be the same bytes.
__device__ __forceinline__ float scale_bias(float acc, float scale, float bias) {
    return exact::add(exact::mul(acc, scale), bias);
}

// max(y, 0) of the relu_e4m3 epilogue (a NaN gives 0, which no finite GEMM output is): one
// definition for the GEMM and lite's fused tail (its head MLP), whose e4m3 bytes must agree.
__device__ __forceinline__ float relu(float y) { return y > 0.0f ? y : 0.0f; }

// ---- fast mode ------------------------------------------------------------------------------
// fast_exp2, fast_rsqrt, fast_log2 and fast_rcp: each one MUFU instruction `<op>.approx.ftz.f32`
// (the PTX text must be a literal, hence the macro).
#define SWINUP_FAST_MUFU(name, op)                                     \
    __device__ __forceinline__ float name(float x) {                   \
        float y;                                                       \
        asm(op ".approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));          \
        return y;                                                      \
    }
SWINUP_FAST_MUFU(fast_exp2, "ex2")
SWINUP_FAST_MUFU(fast_rsqrt, "rsqrt")
SWINUP_FAST_MUFU(fast_log2, "lg2")
SWINUP_FAST_MUFU(fast_rcp, "rcp")
#undef SWINUP_FAST_MUFU

// ---- encoders -------------------------------------------------------------------------------
// f32 -> e4m3 on the hardware converter (cvt.rn.satfinite.e4m3x2.f32, sm_89+): round to nearest
// even, saturate to +-448, NaN -> 0x7f. The same function as src/numeric/e4m3.h's f32_to_e4m3;
// tests/cuda/test_cuda_kernels.cpp checks that on every f16 value and on random f32 bit patterns.
// NaN is mapped to 0x7f explicitly: the converter's NaN keeps no documented sign.
__device__ __forceinline__ uint16_t e4m3x2(float lo, float hi) {
    uint16_t r = static_cast<uint16_t>(__nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E4M3));
    if (lo != lo) r = static_cast<uint16_t>((r & 0xff00u) | 0x7fu);
    if (hi != hi) r = static_cast<uint16_t>((r & 0x00ffu) | 0x7f00u);
    return r;
}
__device__ __forceinline__ uint8_t e4m3(float x) {
    return x != x ? uint8_t{0x7f} : static_cast<uint8_t>(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
}

// ---- GELU -> e4m3, the MLP's hidden activation ------------------------------------------------
// Fast mode evaluates GELU on a pair of values in f16x2: the pair is rounded to f16 with
// saturation (cvt.rn.satfinite.f16x2.f32, so no value becomes an infinity), then
//   a = x * x;  b = a * (0.044715 k) + k;  u = x * b;  h = 0.5 x;  gelu = h * tanh(u) + h
// with k = sqrt(2 / pi), one tanh.approx.f16x2 for both values (relative error about 2^-11), and
// the f16 pair encoded by the hardware's cvt.rn.satfinite.e4m3x2.f16x2. Each f16 step is far finer
// than e4m3's 3 mantissa bits, so the result differs from exact mode's e4m3(gelu) only where a
// value sits next to an e4m3 rounding boundary (docs/cuda-kernels.md gives the measured bound).
// It is about half the instructions of the f32 form, whose epilogue was most of the level-1 MLP's
// issue slots. Large |x|: a overflows to +inf, u to +-inf, tanh to +-1, so gelu = x or 0, as it
// should (h is finite because x is). The inputs are GEMM outputs (finite sums of finite e4m3
// products, a power-of-two scale and a finite bias), so no NaN reaches this.
__device__ __forceinline__ uint32_t f16x2_satfinite(float lo, float hi) {
    uint32_t r;
    asm("cvt.rn.satfinite.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
__device__ __forceinline__ uint16_t fast_gelu_e4m3x2(float lo, float hi) {
    const uint32_t xr = f16x2_satfinite(lo, hi);
    const __half2 xv = *reinterpret_cast<const __half2*>(&xr);
    const __half2 k = __float2half2_rn(0.7978845608028654f);
    const __half2 kc = __float2half2_rn(0.7978845608028654f * 0.044715f);
    const __half2 a = __hmul2_rn(xv, xv);
    const __half2 b = __hfma2(a, kc, k);
    const __half2 u = __hmul2_rn(xv, b);
    uint32_t tr;
    asm("tanh.approx.f16x2 %0, %1;" : "=r"(tr) : "r"(*reinterpret_cast<const uint32_t*>(&u)));
    const __half2 th = *reinterpret_cast<const __half2*>(&tr);
    const __half2 h = __hmul2_rn(xv, __float2half2_rn(0.5f));
    const __half2 y = __hfma2(h, th, h);
    return static_cast<uint16_t>(__nv_cvt_halfraw2_to_fp8x2(static_cast<__half2_raw>(y), __NV_SATFINITE, __NV_E4M3));
}

// e4m3(gelu(y)) for a pair of fc1 outputs in the context's precision (the branch is uniform
// across a launch): exact mode's formula (src/numeric/exact_math.h) and e4m3x2, or the f16x2 form
// above. The one definition for the layer-by-layer GEMM and the fused MLP, whose bytes must agree.
__device__ __forceinline__ uint16_t gelu_e4m3x2(float lo, float hi, swinup_precision precision) {
    return precision == SWINUP_PRECISION_EXACT ? e4m3x2(exact::gelu(lo), exact::gelu(hi)) : fast_gelu_e4m3x2(lo, hi);
}

// Two f32 -> one f16x2 word (low half = lo), each rounded to nearest even (cvt.rn.f16x2.f32).
__device__ __forceinline__ uint32_t f16x2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
}
__device__ __forceinline__ float f16_lo(uint32_t w) { return __half2float(__ushort_as_half(static_cast<uint16_t>(w))); }
__device__ __forceinline__ float f16_hi(uint32_t w) { return __half2float(__ushort_as_half(static_cast<uint16_t>(w >> 16))); }
__device__ __forceinline__ float f16_to_f32(uint16_t h) { return __half2float(__ushort_as_half(h)); }
__device__ __forceinline__ uint16_t f32_to_f16(float f) { return __half_as_ushort(__float2half_rn(f)); }

}  // namespace swinup::cuda
