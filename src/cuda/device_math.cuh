// Device-side arithmetic shared by the CUDA kernels: the `fast` precision mode's hardware
// approximations, the hardware e4m3 encoder, and f16 packing.
//
// `exact` mode never uses anything here except the encoders: it calls src/core/exact_math.h,
// whose device branch uses the never-contracted _rn intrinsics, so CPU and GPU evaluate the same
// operation sequence. `fast` mode swaps in MUFU approximations (ex2.approx, rsqrt.approx,
// rcp.approx, lg2.approx); docs/cuda-kernels.md states the measured bound against `exact`.
#pragma once

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "core/exact_math.h"
#include "swinup/swinup.h"

namespace swinup::cuda {

// ---- linear-layer epilogue ------------------------------------------------------------------
// y = t + bias with t = acc * scale: two roundings, as on every backend (model-spec.md). One
// definition for the GEMM and the fused MLP, whose outputs must be the same bytes.
__device__ __forceinline__ float scale_bias(float acc, float scale, float bias) {
    return exact::add(exact::mul(acc, scale), bias);
}

// ---- fast mode ------------------------------------------------------------------------------
__device__ __forceinline__ float fast_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float fast_rsqrt(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float fast_log2(float x) {
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float fast_rcp(float x) {
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
// tanh(y) = 1 - 2 / (1 + 2^(2 y log2e)): the exact mode's formula on MUFU units.
__device__ __forceinline__ float fast_tanh(float y) {
    return 1.0f - 2.0f * fast_rcp(1.0f + fast_exp2(2.0f * exact::kLog2e * y));
}
__device__ __forceinline__ float fast_gelu(float x) {
    const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + fast_tanh(inner));
}

// GELU in the context's precision (the branch is uniform across a launch).
__device__ __forceinline__ float gelu(float x, swinup_precision precision) {
    return precision == SWINUP_PRECISION_EXACT ? exact::gelu(x) : fast_gelu(x);
}

// ---- encoders -------------------------------------------------------------------------------
// f32 -> e4m3 on the hardware converter (cvt.rn.satfinite.e4m3x2.f32, sm_89+): round to nearest
// even, saturate to +-448, NaN -> 0x7f. The same function as src/core/e4m3.h's f32_to_e4m3;
// tests/gpu/test_cuda_kernels.cpp checks that on every f16 value and on random f32 bit patterns.
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
