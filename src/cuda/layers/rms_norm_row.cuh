// The per-token RMSNorm -> e4m3 operation sequence (docs/model-spec.md), in pieces that work on a
// token row held in shared memory. rms_norm_e4m3_kernel and the GEMM's fused A loader (norm1 ->
// qkv, norm2 -> fc1) both call exactly these, so the fused GEMM's A bytes equal the unfused norm's
// output byte for byte (docs/cuda-kernels.md, "RMSNorm").
#pragma once

#include <cstdint>

#include "numeric/exact_math.h"
#include "model/model_spec.h"
#include "cuda/device/device_math.cuh"
#include "swinup/swinup.h"

namespace swinup::cuda {

// sum over c in channel order of x[c]^2 (f32, one rounding per mul and per add), x = c_out f16
// values at `row` (16-byte aligned; c_out % 8 == 0).
__device__ __forceinline__ float rms_sum_of_squares(const uint8_t* row, int c_out) {
    float sum = 0.0f;
    for (int c = 0; c < c_out; c += 8) {
        const uint4 v = *reinterpret_cast<const uint4*>(row + c * 2);
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const float a = f16_lo(w[j]), b = f16_hi(w[j]);
            sum = exact::add(sum, exact::mul(a, a));
            sum = exact::add(sum, exact::mul(b, b));
        }
    }
    return sum;
}

// 1 / sqrt(sum / c_out + 2^-13): exact mode with IEEE division and square root; fast mode
// rsqrt.approx of fma(sum, 1 / c_out, 2^-13) (the reciprocal correctly rounded), written with
// intrinsics so that no caller's context can contract it differently.
__device__ __forceinline__ float rms_inverse(float sum, int c_out, swinup_precision precision) {
    if (precision == SWINUP_PRECISION_EXACT) {
        const float mean = exact::div(sum, static_cast<float>(c_out));
        return exact::div(1.0f, exact::sqrt(exact::add(mean, kRmsEps)));
    }
    return fast_rsqrt(__fmaf_rn(sum, __frcp_rn(static_cast<float>(c_out)), kRmsEps));
}

// Channels c..c+7 (x8: their 8 f16 values; gain: their 8 gains): (x * inv) * gain -> e4m3 bytes,
// channel c in the lowest byte.
__device__ __forceinline__ uint2 rms_scale8_e4m3(const uint4& x8, float inv, const float* gain) {
    const uint32_t w[4] = {x8.x, x8.y, x8.z, x8.w};
    uint32_t packed[2];
#pragma unroll
    for (int j = 0; j < 4; j += 2) {
        const float y0 = exact::mul(exact::mul(f16_lo(w[j]), inv), gain[2 * j]);
        const float y1 = exact::mul(exact::mul(f16_hi(w[j]), inv), gain[2 * j + 1]);
        const float y2 = exact::mul(exact::mul(f16_lo(w[j + 1]), inv), gain[2 * j + 2]);
        const float y3 = exact::mul(exact::mul(f16_hi(w[j + 1]), inv), gain[2 * j + 3]);
        packed[j / 2] = static_cast<uint32_t>(e4m3x2(y0, y1)) | (static_cast<uint32_t>(e4m3x2(y2, y3)) << 16);
    }
    return make_uint2(packed[0], packed[1]);
}

// One warp normalises a 16-token tile (the fused kernels' m16 tile): f16 rows x_s (row stride
// x_stride bytes) -> e4m3 rows a_s (stride a_stride), with the pieces above. Lanes l and l + 16
// both compute row l % 16's sum and inverse (the same function of the same bytes, so the same
// value; this saves a shuffle and costs no time, the other half-warp would wait anyway), then each
// scales one half of the row's channels. The caller synchronises the warp around it.
template <int kC>
__device__ __forceinline__ void rms_normalise_tile16(const uint8_t* x_s, int x_stride, const float* gain_s,
                                                     uint8_t* a_s, int a_stride, swinup_precision precision,
                                                     int lane) {
    static_assert(kC % 32 == 0, "each half-row is a whole number of 16-channel steps");
    const int r = lane & 15, half = lane >> 4;
    const uint8_t* xr = x_s + r * x_stride;
    const float inv = rms_inverse(rms_sum_of_squares(xr, kC), kC, precision);
    uint8_t* ar = a_s + r * a_stride;
#pragma unroll
    for (int c = half * (kC / 2); c < (half + 1) * (kC / 2); c += 16) {
        const uint2 lo = rms_scale8_e4m3(*reinterpret_cast<const uint4*>(xr + c * 2), inv, gain_s + c);
        const uint2 hi = rms_scale8_e4m3(*reinterpret_cast<const uint4*>(xr + c * 2 + 16), inv, gain_s + c + 8);
        *reinterpret_cast<uint4*>(ar + c) = make_uint4(lo.x, lo.y, hi.x, hi.y);
    }
}

// The same for a 32-row tile (two 16-row tiles, one after the other), one row per lane: each lane
// computes its row's sum and inverse once and scales all of the row's channels. The same pieces on
// the same bytes, so the same e4m3 rows as rms_normalise_tile16 on each half; in half the sums.
template <int kC>
__device__ __forceinline__ void rms_normalise_tile32(const uint8_t* x_s, int x_stride, const float* gain_s,
                                                     uint8_t* a_s, int a_stride, swinup_precision precision,
                                                     int lane) {
    static_assert(kC % 16 == 0, "a whole number of 16-channel steps");
    const uint8_t* xr = x_s + lane * x_stride;
    const float inv = rms_inverse(rms_sum_of_squares(xr, kC), kC, precision);
    uint8_t* ar = a_s + lane * a_stride;
#pragma unroll
    for (int c = 0; c < kC; c += 16) {
        const uint2 lo = rms_scale8_e4m3(*reinterpret_cast<const uint4*>(xr + c * 2), inv, gain_s + c);
        const uint2 hi = rms_scale8_e4m3(*reinterpret_cast<const uint4*>(xr + c * 2 + 16), inv, gain_s + c + 8);
        *reinterpret_cast<uint4*>(ar + c) = make_uint4(lo.x, lo.y, hi.x, hi.y);
    }
}

// The same rows split over the warps of a team (warp_team.cuh): this warp normalises kRows rows
// from first_row (16 / kRows warps cover a 16-row tile), 32 / kRows lanes per row. Every lane of
// a row computes the row's sum and inverse (the same function of the same bytes, so the same
// value) and scales its share of the row's 8-channel groups: the same pieces on the same bytes, so
// the same e4m3 rows as rms_normalise_tile16. The caller synchronises the team around it.
template <int kC, int kRows>
__device__ __forceinline__ void rms_normalise_rows(const uint8_t* x_s, int x_stride, const float* gain_s, uint8_t* a_s,
                                                   int a_stride, swinup_precision precision, int lane, int first_row) {
    static_assert(32 % kRows == 0 && kC % 8 == 0, "whole lanes per row, whole 8-channel groups");
    constexpr int kLanesPerRow = 32 / kRows;
    const int r = first_row + lane / kLanesPerRow, part = lane % kLanesPerRow;
    const uint8_t* xr = x_s + r * x_stride;
    const float inv = rms_inverse(rms_sum_of_squares(xr, kC), kC, precision);
    uint8_t* ar = a_s + r * a_stride;
#pragma unroll
    for (int c = part * 8; c < kC; c += kLanesPerRow * 8)
        *reinterpret_cast<uint2*>(ar + c) =
            rms_scale8_e4m3(*reinterpret_cast<const uint4*>(xr + c * 2), inv, gain_s + c);
}

}  // namespace swinup::cuda
