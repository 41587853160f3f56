// The push constants of the layer kernels, field for field the `Params` blocks of
// src/vulkan/shaders/layers/*.comp (std430 push-constant layout: 4-byte members, no padding).
#pragma once

#include <cstdint>

namespace swinup::vulkan {

// gemm_e4m3.comp's epilogue codes.
enum class GemmEpilogue : int32_t {
    store_f32 = 0,
    store_f16 = 1,
    gelu_e4m3 = 2,
    relu_e4m3 = 3,
    residual_f16 = 4,     // out = f16(out + y), the f16 residual stream in place
    add_f32 = 5,          // out += y (the head MLP's fc3 onto the head outputs)
    expand_f16_skip = 6,  // depth-to-space + f16 skip -> f16
    expand_f32_skip = 7,  // depth-to-space + f32 skip -> f16 (lite's expand0 + skip0)
    add_f32_store_f16 = 8,   // out = f16(y + aux), aux f32 at out's index (lite's embed + mask_embed)
    add_f32_relu_e4m3 = 9,   // out = e4m3(ReLU(y + aux)), aux f32 likewise (full's embed0 + mask_embed)
};

struct GemmParams {
    int32_t m, n, k, lda, a_offset, ldo, out_offset, epilogue, coarse_w, expand_c, exact;
    int32_t norm;  // gemm_matrix.comp: 1 = a holds f16 rows that RMSNorm (gain: binding 6) turns into e4m3
};

struct RmsNormParams {
    int32_t rows, channels, gather, coarse_w, out_stride, out_offset, exact;
};

struct AttentionParams {
    int32_t width, height, channels, heads, shifted;
    float inv_sqrt_d;
    int32_t exact;
};

struct GatherRowsParams {
    int32_t rows, words, in_stride, out_stride, out_offset, gather, coarse_w;
};

// The largest push-constant block of the layer kernels (Vulkan guarantees 128 bytes).
constexpr uint32_t kLayerPushBytes = sizeof(GemmParams);
static_assert(sizeof(GemmParams) <= 128, "push constants beyond Vulkan's guaranteed 128 bytes");

}  // namespace swinup::vulkan
