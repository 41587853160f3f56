// Every SIMD level of the CPU backend's kernels (cpu/simd/simd_level.h) gives the scalar path's
// bits: the matrix product (cpu/layers/matmul.h), the element-wise roundings, window attention
// and whole frames through the C API (the output pass too) are run at each level this processor
// supports and compared bit for bit with the scalar level. The matrix product is also checked against its definition, a plain loop summing
// each output's products in k order, on data whose f32 sums really do round (so another order
// would give other bits).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "api/resource_desc.h"
#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "model/model_spec.h"
#include "cpu/layers/elementwise.h"
#include "cpu/layers/matmul.h"
#include "cpu/layers/window_attention.h"
#include "cpu/simd/simd_level.h"
#include "swinup/swinup.h"

namespace swinup::cpu {
namespace {

std::vector<SimdLevel> supported_levels() {
    std::vector<SimdLevel> levels;
    for (int l = 0; l <= static_cast<int>(simd_level_supported()); ++l) levels.push_back(static_cast<SimdLevel>(l));
    return levels;
}

// Runs fn at each supported level; returns the outputs, scalar first. Restores the best level.
std::vector<std::vector<float>> at_each_level(const std::function<std::vector<float>()>& fn) {
    std::vector<std::vector<float>> outputs;
    for (SimdLevel level : supported_levels()) {
        set_simd_level(level);
        EXPECT_EQ(simd_level(), level);
        outputs.push_back(fn());
    }
    set_simd_level(simd_level_supported());
    return outputs;
}

void expect_same_bits(const std::vector<float>& scalar, const std::vector<float>& other, SimdLevel level) {
    ASSERT_EQ(scalar.size(), other.size());
    size_t differing = 0, first = 0;
    for (size_t i = 0; i < scalar.size(); ++i) {
        if (std::memcmp(&scalar[i], &other[i], sizeof(float)) != 0 && differing++ == 0) first = i;
    }
    EXPECT_EQ(differing, 0u) << simd_level_name(level) << ": " << differing << " of " << scalar.size()
                             << " values differ from scalar, first at " << first << " (" << scalar[first]
                             << " vs " << other[first] << ")";
}

void expect_all_levels_agree(const std::vector<std::vector<float>>& outputs) {
    const std::vector<SimdLevel> levels = supported_levels();
    for (size_t l = 1; l < outputs.size(); ++l) expect_same_bits(outputs[0], outputs[l], levels[l]);
}

// Random e4m3 values over the whole range (NaN codes excluded): products span 2^-18 .. 2^17.6,
// so that f32 sums of a few hundred of them round.
std::vector<float> random_e4m3(size_t n, std::mt19937& rng) {
    std::uniform_int_distribution<int> code(0, 255);
    std::vector<float> v(n);
    for (float& x : v) {
        int c;
        do c = code(rng); while ((c & 0x7f) == 0x7f);
        x = e4m3_to_f32(uint8_t(c));
    }
    return v;
}

TEST(SimdLevels, ReportsTheLevelInUse) {
    std::printf("SIMD level supported here: %s\n", simd_level_name(simd_level_supported()));
    EXPECT_EQ(simd_level(), simd_level_supported());
    set_simd_level(SimdLevel::scalar);
    EXPECT_EQ(simd_level(), SimdLevel::scalar);
    set_simd_level(SimdLevel::avx512);  // clamped to what this processor has
    EXPECT_EQ(simd_level(), simd_level_supported());
}

TEST(SimdLevels, MatmulSumsEachOutputInKOrderAtEveryLevel) {
    std::mt19937 rng(7);
    // Shapes of the network (multiples of 16 outputs) and odd ones: partial panels, a row count
    // that is no multiple of the kernels' row blocks, an output count that is an odd number of panels.
    const int shapes[][3] = {{256, 64, 192}, {37, 128, 512}, {13, 512, 128}, {5, 96, 40}, {1, 16, 8}, {7, 3, 48}};
    size_t rounded = 0;
    for (const auto& s : shapes) {
        const int rows = s[0], in = s[1], out = s[2];
        const std::vector<float> x = random_e4m3(size_t(rows) * in, rng);
        const std::vector<float> w = random_e4m3(size_t(out) * in, rng);  // out x in
        const PackedMatrix m = pack_matrix(w.data(), in, out);
        std::vector<float> reference(size_t(rows) * out);
        for (int r = 0; r < rows; ++r) {
            for (int o = 0; o < out; ++o) {
                float acc = 0.0f;
                double exact = 0.0;
                for (int k = 0; k < in; ++k) {
                    acc = acc + x[size_t(r) * in + k] * w[size_t(o) * in + k];
                    exact += double(x[size_t(r) * in + k]) * double(w[size_t(o) * in + k]);
                }
                reference[size_t(r) * out + o] = acc;
                rounded += acc != float(exact);
            }
        }
        const auto outputs = at_each_level([&] {
            std::vector<float> y(size_t(rows) * out, -1.0f);
            matmul(m, x.data(), rows, y.data());
            return y;
        });
        SCOPED_TRACE(testing::Message() << rows << " x " << in << " -> " << out);
        expect_same_bits(reference, outputs[0], SimdLevel::scalar);
        expect_all_levels_agree(outputs);
    }
    // The data must make the order matter, or the test could not tell orders apart.
    EXPECT_GT(rounded, 1000u);
}

TEST(SimdLevels, ElementwiseRoundingsAtEveryLevel) {
    std::mt19937 rng(11);
    std::vector<float> input(4099);  // no multiple of 16: the masked tail runs too
    std::uniform_real_distribution<float> wide(-600.0f, 600.0f), narrow(-4.0f, 4.0f);
    for (size_t i = 0; i < input.size(); ++i) input[i] = (i % 3 == 0) ? wide(rng) : narrow(rng) * std::ldexp(1.0f, int(i % 40) - 30);
    input[0] = std::nanf("");
    input[1] = INFINITY;
    input[2] = -INFINITY;
    input[3] = -0.0f;
    const std::vector<float> other(input.rbegin(), input.rend());
    using Op = std::function<void(std::vector<float>&)>;
    const Op ops[] = {
        [](std::vector<float>& v) { round_array_to_e4m3(v.data(), v.size()); },
        [](std::vector<float>& v) { round_array_to_f16(v.data(), v.size()); },
        [&](std::vector<float>& v) { add_round_f16(v.data(), other.data(), v.data(), v.size()); },
        [](std::vector<float>& v) { gelu_to_e4m3(v.data(), v.size()); },
        [](std::vector<float>& v) { relu_to_e4m3(v.data(), v.size()); },
    };
    for (size_t o = 0; o < std::size(ops); ++o) {
        SCOPED_TRACE(testing::Message() << "operation " << o);
        expect_all_levels_agree(at_each_level([&] {
            std::vector<float> v = input;
            ops[o](v);
            return v;
        }));
    }
}

TEST(SimdLevels, WindowAttentionAtEveryLevel) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> value(-3.0f, 3.0f);
    // Not structured bindings: clang 14 does not let the lambda below capture them (C++20's P1091).
    for (const auto& shape : {std::pair{32, 2}, std::pair{96, 4}, std::pair{128, 2}}) {
        const int c = shape.first, heads = shape.second;
        std::vector<float> qkv(size_t(kWindowTokens) * 3 * c), bias(size_t(heads) * kWindowTokens * kWindowTokens);
        for (float& v : qkv) v = round_to_f16(value(rng));
        for (float& v : bias) v = round_to_f16(value(rng));
        uint32_t mask[kWindowTokens];
        for (int i = 0; i < kWindowTokens; ++i) mask[i] = ((0x00ffu << (i % 9)) & 0xffffu) | (1u << i);
        for (const uint32_t* m : {static_cast<const uint32_t*>(nullptr), static_cast<const uint32_t*>(mask)}) {
            SCOPED_TRACE(testing::Message() << "C " << c << ", " << heads << " heads, " << (m ? "masked" : "unmasked"));
            expect_all_levels_agree(at_each_level([&] {
                std::vector<float> out(size_t(kWindowTokens) * c);
                window_attention(qkv.data(), c, heads, bias.data(), m, out.data());
                return out;
            }));
        }
    }
}

// Two frames with history through the C API (CPU backend, exact, both variants), at each level.
TEST(SimdLevels, WholeFramesAtEveryLevel) {
    constexpr uint32_t rw = 48, rh = 40, dw = 96, dh = 80;
    std::vector<float> color(size_t(rw) * rh * 4), depth(size_t(rw) * rh), motion(size_t(rw) * rh * 2);
    for (uint32_t y = 0; y < rh; ++y) {
        for (uint32_t x = 0; x < rw; ++x) {
            const size_t i = size_t(y) * rw + x;
            for (int c = 0; c < 3; ++c) color[i * 4 + c] = 0.5f + 0.45f * std::sin(0.7f * float(x) + 1.3f * float(c) + 0.4f * float(y));
            color[i * 4 + 3] = 1.0f;
            depth[i] = 0.3f + 0.01f * float(y);
            motion[i * 2] = 0.25f;
            motion[i * 2 + 1] = -0.5f;
        }
    }
    for (swinup_variant variant : {SWINUP_VARIANT_LITE, SWINUP_VARIANT_FULL}) {
        SCOPED_TRACE(variant == SWINUP_VARIANT_LITE ? "lite" : "full");
        expect_all_levels_agree(at_each_level([&] {
            swinup_context_desc cd = sized_context_desc(rw, rh, dw, dh);
            cd.backend = SWINUP_BACKEND_CPU;
            cd.variant = variant;
            cd.output_format = SWINUP_FORMAT_RGBA16F;
            swinup_context* ctx = nullptr;
            EXPECT_EQ(swinup_context_create(&cd, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
            std::vector<uint16_t> out(size_t(dw) * dh * 4);
            std::vector<float> frames;
            for (int frame = 0; frame < 2 && ctx; ++frame) {
                swinup_dispatch_desc dd =
                    frame_dispatch_desc(input_resource(color.data(), SWINUP_FORMAT_RGBA32F, rw, rh),
                                        input_resource(depth.data(), SWINUP_FORMAT_R32F, rw, rh),
                                        input_resource(motion.data(), SWINUP_FORMAT_RG32F, rw, rh),
                                        output_resource(out.data(), SWINUP_FORMAT_RGBA16F, dw, dh));
                swinup_get_jitter(uint32_t(frame), 8, &dd.jitter_x, &dd.jitter_y);
                EXPECT_EQ(swinup_dispatch(ctx, &dd), SWINUP_STATUS_OK) << swinup_last_error(ctx);
                for (uint16_t h : out) frames.push_back(float(h));  // the f16 bits, exactly
            }
            swinup_context_destroy(ctx);
            return frames;
        }));
    }
}

}  // namespace
}  // namespace swinup::cpu
