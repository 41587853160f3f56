// What a fused Swin-block half keeps in its CTA's shared memory, loaded once and read by all its
// warps: a norm's gains and the two linear layers that follow it (attention_fused.cu: norm1, qkv,
// proj; mlp_fused.cu: norm2, fc1, fc2; block_fused.cu keeps both, the MLP half's right after the
// attention half's kBytes). In this order from the start of the dynamic shared memory:
// the first layer's e4m3 weight rows [kN1][kK1 + kRowPad], the second's [kN2][kK2 + kRowPad],
// (scale, scale, bias, bias) per column pair of the first and of the second (one float4 per
// fragment pair, stage_scale_bias_pairs), and the norm's kK1 gains (the norm feeds the first
// layer). The per-warp regions follow at kBytes.
#pragma once

#include <cstdint>

#include "cuda/device/cp_async.cuh"
#include "cuda/device/warp_tile_mma.cuh"

namespace swinup::cuda {

template <int kN1, int kK1, int kN2, int kK2, int kRowPad>
struct BlockCtaOperands {
    static constexpr int kStride1 = kK1 + kRowPad;
    static constexpr int kStride2 = kK2 + kRowPad;
    static constexpr int kW1Bytes = kN1 * kStride1;
    static constexpr int kW2Bytes = kN2 * kStride2;
    static constexpr int kSbBytes = (kN1 / 2 + kN2 / 2) * 16;
    static constexpr int kGainBytes = kK1 * 4;
    static constexpr int kBytes = kW1Bytes + kW2Bytes + kSbBytes + kGainBytes;

    uint8_t* w1_s;
    uint8_t* w2_s;
    float4* sb1_s;
    float4* sb2_s;
    float* gain_s;

    __device__ __forceinline__ explicit BlockCtaOperands(uint8_t* smem)
        : w1_s(smem),
          w2_s(w1_s + kW1Bytes),
          sb1_s(reinterpret_cast<float4*>(w2_s + kW2Bytes)),
          sb2_s(sb1_s + kN1 / 2),
          gain_s(reinterpret_cast<float*>(sb2_s + kN2 / 2)) {}

    // The CTA's copies: the weight matrices by cp.async (the caller commits and waits; the
    // persistent tile loop does, with the first token rows), the rest stored directly.
    __device__ __forceinline__ void stage(const float* gain, const uint8_t* w1, const float* scale1,
                                          const float* bias1, const uint8_t* w2, const float* scale2,
                                          const float* bias2) const {
        cp_async_matrix(w1_s, kStride1, w1, kN1, kK1);
        cp_async_matrix(w2_s, kStride2, w2, kN2, kK2);
        stage_scale_bias_pairs(sb1_s, scale1, bias1, kN1);
        stage_scale_bias_pairs(sb2_s, scale2, bias2, kN2);
        for (int i = threadIdx.x; i < kK1; i += blockDim.x) gain_s[i] = gain[i];
    }
};

}  // namespace swinup::cuda
