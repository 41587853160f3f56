// The automatic reactive mask's test cases, shared by the GPU backends' tests
// (tests/vulkan/test_vulkan_reactive_mask.cpp, tests/cuda/test_cuda_reactive_mask.cpp): colours
// with NaN, Inf, negative and large values at an odd size, the generator's modes, and the CPU
// backend's mask of them, which every backend must give to the byte.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "api/resource_desc.h"
#include "numeric/half.h"
#include "swinup/swinup.h"

namespace swinup::test::reactive {

constexpr uint32_t kW = 37, kH = 23;                // odd: partial workgroups on both axes
constexpr uint32_t kMaxW = 48, kMaxH = 32;          // the contexts' largest render size

// Opaque colour RGBA32F and final colour (its f16 values, so that both formats carry the same
// numbers): a glow added over a noisy background, with the awkward values at fixed pixels.
struct Colours {
    std::vector<float> opaque = std::vector<float>(size_t(kW) * kH * 4);
    std::vector<float> final_f32 = std::vector<float>(size_t(kW) * kH * 4);
    std::vector<uint16_t> final_f16 = std::vector<uint16_t>(size_t(kW) * kH * 4);
    std::vector<uint16_t> final_rgb16 = std::vector<uint16_t>(size_t(kW) * kH * 3);

    Colours() {
        std::mt19937 rng(1234);
        std::uniform_real_distribution<float> base(0.0f, 2.0f), glow(-0.2f, 3.0f);
        for (size_t i = 0; i < size_t(kW) * kH; ++i) {
            for (int c = 0; c < 4; ++c) {
                opaque[i * 4 + c] = c == 3 ? 1.0f : base(rng);
                const float f = c == 3 ? 1.0f : opaque[i * 4 + c] + ((i / 5) % 3 == 0 ? glow(rng) : 0.0f);
                final_f16[i * 4 + c] = f32_to_f16_bits(f);
            }
        }
        const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
        const float odd[][2] = {{nan, 1.0f}, {1.0f, nan}, {inf, 0.5f}, {-inf, 2.0f}, {-3.0f, 0.25f}, {100.0f, 0.0f}, {0.5f, 60000.0f}};
        for (size_t k = 0; k < sizeof odd / sizeof odd[0]; ++k) {
            const size_t i = k * 11 + 3;
            opaque[i * 4 + k % 3] = odd[k][0];
            final_f16[i * 4 + (k + 1) % 3] = f32_to_f16_bits(odd[k][1]);
        }
        for (size_t i = 0; i < size_t(kW) * kH; ++i) {
            for (int c = 0; c < 4; ++c) final_f32[i * 4 + c] = f16_bits_to_f32(final_f16[i * 4 + c]);
            for (int c = 0; c < 3; ++c) final_rgb16[i * 3 + c] = final_f16[i * 4 + c];
        }
    }
};

// One mode of the generator.
struct Mode {
    const char* name;
    float scale, threshold, binary_value;
    uint32_t flags;
};
inline const Mode kModes[] = {
    {"tonemapped luma", 1.0f, 0.2f, 0.9f, SWINUP_REACTIVE_TONEMAP},
    {"raw luma, scale 0.4", 0.4f, 0.2f, 0.9f, 0},
    {"tonemapped max channel, scale 3", 3.0f, 0.2f, 0.9f, SWINUP_REACTIVE_TONEMAP | SWINUP_REACTIVE_MAX_CHANNEL},
    {"binary", 2.0f, 0.3f, 0.8f, SWINUP_REACTIVE_TONEMAP | SWINUP_REACTIVE_THRESHOLD | SWINUP_REACTIVE_MAX_CHANNEL},
};
inline const swinup_format kMaskFormats[] = {SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F, SWINUP_FORMAT_R32F};

inline size_t mask_bytes(swinup_format f) { return f == SWINUP_FORMAT_R8_UNORM ? 1 : f == SWINUP_FORMAT_R16F ? 2 : 4; }

inline swinup_context_desc context_desc(swinup_backend backend) {
    swinup_context_desc d;
    swinup_context_desc_init(&d);
    d.backend = backend;
    d.max_render_width = kMaxW;
    d.max_render_height = kMaxH;
    d.display_width = kMaxW * 2;
    d.display_height = kMaxH * 2;
    d.num_threads = 2;
    return d;
}

// A context the test owns.
struct Context {
    swinup_context* ctx = nullptr;
    ~Context() { swinup_context_destroy(ctx); }
};

// A descriptor of host memory for mode m.
inline swinup_reactive_mask_desc host_desc(const Mode& m, const swinup_resource& opaque, const swinup_resource& final_color,
                                    const swinup_resource& output) {
    swinup_reactive_mask_desc d;
    swinup_reactive_mask_desc_init(&d);
    d.opaque_color = opaque;
    d.final_color = final_color;
    d.output = output;
    d.render_width = kW;
    d.render_height = kH;
    d.scale = m.scale;
    d.threshold = m.threshold;
    d.binary_value = m.binary_value;
    d.flags = m.flags;
    return d;
}

// The CPU backend's mask, packed (row pitch = width).
inline std::vector<uint8_t> cpu_mask(const Colours& c, const Mode& m, swinup_format format) {
    Context cpu;
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_CPU);
    EXPECT_EQ(swinup_context_create(&desc, &cpu.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    std::vector<uint8_t> out(size_t(kW) * kH * mask_bytes(format), 0xEE);
    const swinup_reactive_mask_desc d =
        host_desc(m, input_resource(c.opaque.data(), SWINUP_FORMAT_RGBA32F, kW, kH),
                  input_resource(c.final_f16.data(), SWINUP_FORMAT_RGBA16F, kW, kH), output_resource(out.data(), format, kW, kH));
    EXPECT_EQ(swinup_generate_reactive_mask(cpu.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(cpu.ctx);
    return out;
}

// swinup_generate_reactive_mask on ctx from host memory gives the CPU's bytes in every mode and
// format, with the final colour in RGBA16F and RGB16F, the output rows padded (the padding left).
inline void expect_host_memory_gives_cpu_bytes(swinup_context* ctx, const Colours& c) {
    for (const Mode& m : kModes) {
        for (swinup_format format : kMaskFormats) {
            const std::vector<uint8_t> want = cpu_mask(c, m, format);
            const size_t row = size_t(kW) * mask_bytes(format), pitch = row + 3 * mask_bytes(format);
            for (bool rgb : {false, true}) {
                std::vector<uint8_t> out(pitch * kH, 0xEE);
                const swinup_resource final_color =
                    rgb ? input_resource(c.final_rgb16.data(), SWINUP_FORMAT_RGB16F, kW, kH)
                        : input_resource(c.final_f16.data(), SWINUP_FORMAT_RGBA16F, kW, kH);
                const swinup_reactive_mask_desc d =
                    host_desc(m, input_resource(c.opaque.data(), SWINUP_FORMAT_RGBA32F, kW, kH), final_color,
                              output_resource(out.data(), format, kW, kH, SWINUP_MEMORY_HOST, pitch));
                ASSERT_EQ(swinup_generate_reactive_mask(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
                for (uint32_t y = 0; y < kH; ++y) {
                    EXPECT_EQ(std::memcmp(&out[y * pitch], &want[y * row], row), 0)
                        << m.name << ", format " << format << (rgb ? ", RGB16F" : "") << ": row " << y << " differs";
                    for (size_t b = row; b < pitch; ++b) ASSERT_EQ(out[y * pitch + b], 0xEE) << "padding written";
                }
            }
        }
    }
}

}  // namespace swinup::test::reactive
